"""Per-host politeness: the injectable clock, each host's policy, the pacer that spaces request starts, and
Retry-After parsing (seconds or an HTTP date)."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Protocol


class Clock(Protocol):
    """Time source for pacing and backoff; tests pass a fake one that advances on sleep."""

    def now(self) -> float:
        """Monotonic seconds."""
        ...

    def time(self) -> float:
        """Wall-clock epoch seconds (to read HTTP-date Retry-After headers)."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


@dataclass(frozen=True)
class HostPolicy:
    """Politeness and retry rules for one host (see docs/apis.md §4)."""

    min_interval_s: float = 0.0
    max_concurrency: int = 4
    max_attempts: int = 4
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 60.0
    max_retry_wait_s: float = 120.0
    retry_statuses: frozenset[int] = frozenset({429, 502, 503, 504})
    timeout_s: float = 30.0
    max_connections: int = 8
    max_connect_attempts: int = 2  # a refused connection or failed DNS lookup is retried once, not max_attempts times
    connect_timeout_s: float = 10.0  # establishing the connection; timeout_s still bounds the whole attempt


class Pacer:
    """Per-host spacing between request starts plus a concurrency cap; both adjustable from headers.

    Starts are serialised under a lock that is held while waiting, so the spacing is exact even when many
    tasks queue at once; `defer` pushes the next start back (Retry-After, backoff, throttling headers).
    """

    def __init__(self, min_interval_s: float, max_concurrency: int, clock: Clock):
        self.min_interval_s = min_interval_s
        self.max_concurrency = max(1, max_concurrency)
        self.clock = clock
        self.in_flight = 0
        self._next_start = -math.inf
        self._loop: asyncio.AbstractEventLoop | None = None
        self._start_lock: asyncio.Lock | None = None
        self._cond: asyncio.Condition | None = None

    def _primitives(self) -> tuple[asyncio.Lock, asyncio.Condition]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._start_lock is None or self._cond is None:
            self._loop, self._start_lock, self._cond, self.in_flight = loop, asyncio.Lock(), asyncio.Condition(), 0
        return self._start_lock, self._cond

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        start_lock, cond = self._primitives()
        async with cond:
            await cond.wait_for(lambda: self.in_flight < self.max_concurrency)
            self.in_flight += 1
        try:
            await self._wait_for_start(start_lock)
            yield
        finally:
            async with cond:
                self.in_flight -= 1
                cond.notify_all()

    async def _wait_for_start(self, start_lock: asyncio.Lock) -> None:
        """Wait until this request may start, inside the concurrency cap: spaced after the last start here."""
        async with start_lock:
            wait = self._next_start - self.clock.now()
            if wait > 0:
                await self.clock.sleep(wait)
            self._next_start = self.clock.now() + self.min_interval_s

    def defer(self, seconds: float) -> None:
        """No request to this host starts before now + seconds."""
        self._next_start = max(self._next_start, self.clock.now() + max(0.0, seconds))

    def update(self, *, min_interval_s: float | None = None, max_concurrency: int | None = None) -> None:
        if min_interval_s is not None and min_interval_s >= 0:
            self.min_interval_s = min_interval_s
        if max_concurrency is not None and max_concurrency >= 1:
            self.max_concurrency = max_concurrency


def parse_retry_after(value: str | None, now_epoch: float) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date; None when absent/invalid."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now_epoch)
