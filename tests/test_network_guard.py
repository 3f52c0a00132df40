"""The session-wide guard refuses real hosts and keeps loopback usable."""

import socket

import httpx
import pytest

from agent.tools.arxiv import ArxivClient
from agent.tools.http import HttpOptions
from tests.network_guard import NetworkBlocked
from tests.tools.helpers import FakeClock


def test_real_hosts_are_refused():
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("export.arxiv.org", 443)
    with pytest.raises(NetworkBlocked), socket.socket() as sock:
        sock.connect(("93.184.216.34", 80))


async def test_a_client_without_a_replay_transport_cannot_reach_its_api():
    client = ArxivClient(options=HttpOptions(cache=None, clock=FakeClock()))  # no transport: the real one
    with pytest.raises(NetworkBlocked, match="export.arxiv.org"):
        await client.search("graph neural networks", limit=1)


def test_loopback_still_works():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=2):
            pass
    assert httpx.URL("http://127.0.0.1:1/").host == "127.0.0.1"
