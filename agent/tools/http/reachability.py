"""Hosts a run could not connect to, so later calls of the same run fail at once instead of retrying a dead host.

Without a network every call fails the same way, and each retried round (round 2, the citation hop, claim checks)
would pay the connection attempts and backoff again. A connection failure (refused, DNS lookup failed, connect
timed out) is not an answer from the host, unlike an HTTP error, so it says the host is unreachable for now; the
memory lasts one run (the API sets `unreachable_hosts` per run), since a network can come back between runs.
"""

from __future__ import annotations

import threading
from contextvars import ContextVar

import httpx


class UnreachableHosts:
    """Host -> why the connection failed ('connection refused', 'DNS lookup failed', 'connect timed out')."""

    def __init__(self) -> None:
        self._reasons: dict[str, str] = {}
        self._lock = threading.Lock()

    def mark(self, host: str, reason: str) -> None:
        with self._lock:
            self._reasons.setdefault(host.lower(), reason)

    def reason(self, host: str) -> str | None:
        with self._lock:
            return self._reasons.get(host.lower())

    def __len__(self) -> int:
        return len(self._reasons)


unreachable_hosts: ContextVar[UnreachableHosts | None] = ContextVar("unreachable_hosts", default=None)
"""The current run's memory of unreachable hosts; None outside a run (every call then tries its host)."""


def connect_failure(exc: BaseException) -> str | None:
    """Why `exc` means the host could not be reached at all, or None for any other failure (a read timeout, a
    reset connection, an HTTP error: the host answered)."""
    if isinstance(exc, httpx.ConnectTimeout):
        return "connect timed out"
    if not isinstance(exc, httpx.ConnectError):
        return None
    text = str(exc).lower()
    if "refused" in text:
        return "connection refused"
    if any(
        word in text
        for word in ("name or service", "nodename", "getaddrinfo", "name resolution", "no address", "errno -")
    ):
        return "DNS lookup failed"
    if "unreachable" in text:
        return "network unreachable"
    return "connection failed"
