"""Helpers for the live-client tests: recorded fixtures, a virtual clock and a replay router.

Nothing here touches the network: every client gets an httpx.MockTransport whose handler is a Router
that answers from ../shared/fixtures (or from responses built in the test) and records each request.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
EPOCH = 1_780_000_000.0


def fixture_bytes(rel: str) -> bytes:
    return (FIXTURES / rel).read_bytes()


def fixture_json(rel: str) -> Any:
    return json.loads(fixture_bytes(rel))


class FakeClock:
    """Virtual time: `sleep` advances `now` instantly and records how long it was asked to wait."""

    def __init__(self) -> None:
        self.t = 0.0
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    def time(self) -> float:
        return EPOCH + self.t

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += max(0.0, seconds)
        await asyncio.sleep(0)


Responder = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response | Awaitable[httpx.Response]]


class Route:
    def __init__(self, method: str, url: str, params: dict[str, str] | None, responses: list[Responder]):
        self.method, self.url, self.params, self.responses = method, httpx.URL(url), params or {}, responses
        self.calls: list[httpx.Request] = []

    def matches(self, request: httpx.Request) -> bool:
        base = request.url.copy_with(query=None)
        return (
            request.method == self.method
            and base == self.url
            and all(request.url.params.get(k) == v for k, v in self.params.items())
        )


class Router:
    """Replays canned responses by method + URL (+ a params subset); unmatched requests fail the test.

    Each route answers its responses in order and repeats the last one; `times` holds the virtual time of
    every request so pacing can be asserted.
    """

    def __init__(self, clock: FakeClock | None = None):
        self.routes: list[Route] = []
        self.requests: list[httpx.Request] = []
        self.times: list[float] = []
        self.clock = clock

    def add(self, method: str, url: str, *responses: Responder, params: dict[str, str] | None = None) -> Route:
        route = Route(method, url, params, list(responses))
        self.routes.insert(0, route)  # later routes win, so a test can override a general one
        return route

    async def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.times.append(self.clock.now() if self.clock else 0.0)
        for route in self.routes:
            if route.matches(request):
                index = min(len(route.calls), len(route.responses) - 1)
                route.calls.append(request)
                answer = route.responses[index]
                if isinstance(answer, Exception):
                    raise answer
                if callable(answer) and not isinstance(answer, httpx.Response):
                    answer = answer(request)
                    if inspect.isawaitable(answer):
                        answer = await answer
                return answer
        raise AssertionError(f"unexpected request {request.method} {request.url}")

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(
        status, content=json.dumps(body).encode(), headers={"content-type": "application/json", **(headers or {})}
    )


def fixture_response(rel: str, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    suffix = rel.rsplit(".", 1)[-1]
    ctype = {"json": "application/json", "xml": "application/atom+xml", "html": "text/html; charset=utf-8"}.get(
        suffix, "text/plain"
    )
    return httpx.Response(status, content=fixture_bytes(rel), headers={"content-type": ctype, **(headers or {})})
