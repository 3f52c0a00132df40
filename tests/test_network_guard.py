"""The session-wide guard refuses non-loopback hosts and keeps loopback usable.

These tests never depend on the guard to stay off the network: the socket functions underneath the guard they
exercise are fakes that record what reached them, so a broken guard fails the test instead of sending a packet.
Addresses are from the ranges reserved for documentation (192.0.2.0/24) and the `.invalid` top-level domain.
"""

import socket

import httpx
import pytest

from agent.tools.http import HttpOptions
from agent.tools.sources import arxiv
from agent.tools.sources.arxiv import ArxivClient
from tests.network_guard import NetworkBlocked, network_blocked
from tests.tools.helpers import FakeClock

UNROUTABLE_NAME = "api.example.invalid"
UNROUTABLE_IP = "192.0.2.1"


@pytest.fixture
def beneath_the_guard(monkeypatch):
    """A guard installed over recording fakes of the socket functions: what it lets through lands in `reached`."""
    reached: list[object] = []

    def fake_connect(self, address):
        reached.append(address)
        raise ConnectionRefusedError("fake socket: nothing is sent")

    def fake_getaddrinfo(host, *args, **kwargs):
        reached.append(host)
        raise socket.gaierror("fake resolver: nothing is asked")

    monkeypatch.setattr(socket.socket, "connect", fake_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", fake_connect)
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    with network_blocked():
        yield reached


def test_the_guard_is_installed_for_the_session():
    assert socket.getaddrinfo.__qualname__.startswith("network_blocked.")
    assert socket.socket.connect.__qualname__.startswith("network_blocked.")


def test_non_loopback_hosts_are_refused_before_any_lookup_or_connection(beneath_the_guard):
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo(UNROUTABLE_NAME, 443)
    with pytest.raises(NetworkBlocked), socket.socket() as sock:
        sock.connect((UNROUTABLE_IP, 80))
    with pytest.raises(NetworkBlocked), socket.socket() as sock:
        sock.connect_ex((UNROUTABLE_IP, 80))
    assert beneath_the_guard == []
    with pytest.raises(ConnectionRefusedError), socket.socket() as sock:  # loopback passes through to the socket below
        sock.connect(("127.0.0.1", 9))
    assert beneath_the_guard == [("127.0.0.1", 9)]


async def test_a_client_without_a_replay_transport_is_stopped_by_the_guard(beneath_the_guard):
    client = ArxivClient(options=HttpOptions(cache=None, clock=FakeClock()))  # no transport: httpx's real one
    host = httpx.URL(arxiv.BASE_URL).host
    with pytest.raises(NetworkBlocked, match=host.replace(".", r"\.")):
        await client.search("graph neural networks", limit=1)
    assert beneath_the_guard == []


def test_loopback_still_works():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=2):
            pass
    assert httpx.URL("http://127.0.0.1:1/").host == "127.0.0.1"
