"""The one async HTTP base every live client uses: one logical call = cache lookup, paced attempts with backoff
and Retry-After, a timeout on each, redirects checked against the allowlist, body parsing, a call event."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx
from pydantic import BaseModel, SecretStr

from agent.common.redact import redact, register_secret
from agent.errors import SourceError
from agent.tools.http.cache import ResponseCache
from agent.tools.http.errors import ApiError, ErrorReader, HttpResponse, ParseKind, error_detail, parse_body
from agent.tools.http.pacing import Clock, HostPolicy, Pacer, SystemClock, parse_retry_after
from agent.tools.http.reachability import connect_failure, unreachable_hosts
from agent.tools.http.safety import ensure_allowed, public_query, public_url, redact_http_logs

log = logging.getLogger(__name__)

USER_AGENT = "sparkit/0.1.0 (literature research agent; python-httpx)"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


# --- call events -------------------------------------------------------------------------------


class CallEvent(BaseModel):
    """One logical API call, for traces and usage accounting (never holds a secret)."""

    source: str
    host: str
    method: str
    path: str
    status: int | None = None
    attempts: int = 0
    cache_hit: bool = False
    elapsed_s: float = 0.0
    error: str | None = None


call_events: ContextVar[list[CallEvent] | None] = ContextVar("call_events", default=None)


# --- the base ----------------------------------------------------------------------------------


@dataclass
class HttpOptions:
    """What every client shares and tests replace: transport, cache, clock and the jitter source."""

    transport: httpx.AsyncBaseTransport | None = None
    cache: ResponseCache | None = None
    clock: Clock = field(default_factory=SystemClock)
    rng: random.Random = field(default_factory=random.Random)
    mailto: str | None = None
    pacer_factory: Callable[[str, HostPolicy, Clock], Pacer] | None = None
    """Builds each client's pacer from its host, policy and clock; None: a Pacer of this process (the team server's
    workers share one through PostgreSQL, agent/tools/http/postgres.py)."""


HeaderAdapter = Callable[[Mapping[str, str], Pacer, HostPolicy], None]


class HttpBase:
    """One source's HTTP access: its own hosts, policy, pacer, auth headers/params and redactor."""

    def __init__(
        self,
        source: str,
        base_url: str,
        *,
        policy: HostPolicy | None = None,
        options: HttpOptions | None = None,
        hosts: Iterable[str] | None = None,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str | None] | None = None,
        secrets: Iterable[SecretStr | str | None] = (),
        adapt: HeaderAdapter | None = None,
        read_error: ErrorReader | None = None,
        rate_limit_hint: str | None = None,
    ):
        self.source = source
        self.base_url = httpx.URL(base_url.rstrip("/") + "/")
        self.policy = policy or HostPolicy()
        self.options = options or HttpOptions()
        self.hosts = frozenset(h.lower() for h in (hosts or [self.base_url.host]))
        self.clock = self.options.clock
        factory = self.options.pacer_factory
        self.pacer = (
            factory(self.base_url.host, self.policy, self.clock)
            if factory is not None
            else Pacer(self.policy.min_interval_s, self.policy.max_concurrency, self.clock)
        )
        values = [s.get_secret_value() if isinstance(s, SecretStr) else s for s in secrets]
        for value in values:
            register_secret(value)
        redact_http_logs()
        self.redact = redact
        self._headers = dict(headers or {})
        self._params = {k: v for k, v in (params or {}).items() if v is not None}
        self._adapt = adapt
        self._read_error = read_error
        self._rate_limit_hint = rate_limit_hint
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        ua = USER_AGENT + (f" (mailto:{self.options.mailto})" if self.options.mailto else "")
        self._headers.setdefault("User-Agent", ua)

    def __repr__(self) -> str:
        return f"HttpBase(source={self.source!r}, hosts={sorted(self.hosts)})"

    # -- plumbing --

    def _http(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = httpx.AsyncClient(
                transport=self.options.transport,
                timeout=httpx.Timeout(
                    self.policy.timeout_s, connect=min(self.policy.timeout_s, self.policy.connect_timeout_s)
                ),
                limits=httpx.Limits(max_connections=max(1, self.policy.max_connections)),
                follow_redirects=False,
            )
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            try:
                if self._client_loop is asyncio.get_running_loop():
                    await self._client.aclose()
            finally:
                self._client = None

    def _url(self, path: str) -> httpx.URL:
        url = httpx.URL(path) if path.startswith(("http://", "https://")) else self.base_url.join(path.lstrip("/"))
        return ensure_allowed(url, self.hosts, source=self.source)

    def _emit(self, url: httpx.URL, method: str, started: float, **fields: Any) -> None:
        events = call_events.get()
        if events is None:
            return
        query = public_query(url)
        path = url.path + (f"?{query}" if query else "")
        if fields.get("error"):
            fields["error"] = self.redact(fields["error"])
        events.append(
            CallEvent(
                source=self.source,
                host=url.host,
                method=method,
                path=self.redact(path),
                elapsed_s=round(max(0.0, self.clock.now() - started), 6),
                **fields,
            )
        )

    def _backoff(self, attempt: int) -> float:
        raw = min(self.policy.backoff_cap_s, self.policy.backoff_base_s * 2 ** (attempt - 1))
        return raw * (0.5 + 0.5 * self.options.rng.random())

    # -- the call --

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        form: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        expect: Iterable[int] = (200,),
        parse: ParseKind = "json",
        cacheable: bool | None = None,
        use_cache: bool = True,
    ) -> HttpResponse:
        """One logical call. Statuses in `expect` are returned (404 unparsed, `data=None`); retry statuses
        are retried within the policy; anything else, and malformed bodies, raise SourceError."""
        method = method.upper()
        expect = frozenset(expect)
        query = {**self._params, **{k: v for k, v in (params or {}).items() if v is not None}}
        url = self._url(path).copy_merge_params({k: str(v) for k, v in query.items()})
        body: bytes | None = None
        req_headers = dict(self._headers)
        if json_body is not None:
            body = json.dumps(json_body, ensure_ascii=False).encode()
            req_headers["Content-Type"] = "application/json"
        elif form is not None:
            body = urlencode(form).encode()
            req_headers["Content-Type"] = "application/x-www-form-urlencoded"
        req_headers.update(headers or {})
        wants_cache = cacheable if cacheable is not None else method == "GET"
        cache = self.options.cache if wants_cache else None
        key = ResponseCache.make_key(method, public_url(url), body) if cache is not None else ""
        started = self.clock.now()

        if cache is not None and use_cache:
            hit = await cache.get(key)
            if hit is not None:
                hit.data = self._parse(hit, parse)
                self._emit(url, method, started, status=hit.status, attempts=0, cache_hit=True)
                return hit
        try:
            response, attempts = await self._send(method, url, body, req_headers, expect)
        except ApiError as exc:
            stale = await cache.get(key, allow_stale=True) if cache is not None and exc.transient else None
            if stale is not None:
                log.warning("%s", self.redact(f"{self.source}: serving a stale cached response after: {exc}"))
                stale.data = self._parse(stale, parse)
                self._emit(url, method, started, status=stale.status, attempts=exc.attempts, cache_hit=True)
                return stale
            self._emit(url, method, started, status=exc.status, attempts=exc.attempts, error=str(exc))
            raise
        try:
            response.data = self._parse(response, parse)
        except SourceError as exc:
            self._emit(url, method, started, status=response.status, attempts=attempts, error=str(exc))
            raise
        if cache is not None and response.status in (200, 404):
            await cache.put(key, response)
        self._emit(url, method, started, status=response.status, attempts=attempts)
        return response

    def _parse(self, response: HttpResponse, kind: ParseKind) -> Any:
        if response.status == 404:
            return None
        return parse_body(self.source, response, kind)

    async def _send(
        self, method: str, url: httpx.URL, body: bytes | None, headers: dict[str, str], expect: frozenset[int]
    ) -> tuple[HttpResponse, int]:
        attempts = redirects = 0
        while True:
            attempts += 1
            delay: float | None = None
            status: int | None = None
            unreachable: str | None = None
            try:
                async with self.pacer.slot():
                    self._refuse_unreachable(
                        url, attempts - 1
                    )  # checked once the slot is ours: a call queued behind the failing one
                    async with asyncio.timeout(self.policy.timeout_s):
                        raw = await self._http().request(method, url, content=body, headers=headers)
            except (httpx.ConnectTimeout, httpx.ConnectError) as exc:
                unreachable = connect_failure(exc)
                failure = f"{url.host}: {unreachable}"
            except (httpx.TimeoutException, TimeoutError):
                failure = f"timed out after {self.policy.timeout_s:g} s"
            except httpx.TransportError as exc:
                failure = f"connection failed ({type(exc).__name__})"
            else:
                status = raw.status_code
                lower = {k.lower(): v for k, v in raw.headers.items()}
                if self._adapt is not None:
                    self._adapt(lower, self.pacer, self.policy)
                if status in _REDIRECTS and "location" in lower and redirects < 5:
                    url = ensure_allowed(url.join(lower["location"]), self.hosts, source=self.source)
                    redirects += 1
                    attempts -= 1
                    continue
                response = HttpResponse(status=status, headers=lower, content=raw.content, url=public_url(url))
                if status in expect:
                    return response, attempts
                failure = f"HTTP {status}: {error_detail(raw.content, lower, self._read_error)}"
                if status not in self.policy.retry_statuses:
                    raise self._error(failure, status, attempts, transient=False)
                delay = parse_retry_after(lower.get("retry-after"), self.clock.time())
                if delay is not None and delay > self.policy.max_retry_wait_s:
                    raise self._error(f"{failure}; server asks to wait {delay:.0f} s", status, attempts)
            if unreachable is not None and attempts >= min(self.policy.max_attempts, self.policy.max_connect_attempts):
                memory = unreachable_hosts.get()
                if memory is not None:
                    memory.mark(url.host, unreachable)
                raise self._error(
                    f"{failure} (gave up after {attempts} attempts)", None, attempts, unreachable=unreachable
                )
            if attempts >= self.policy.max_attempts:
                raise self._error(f"{failure} (gave up after {attempts} attempts)", status, attempts)
            wait = delay if delay is not None else self._backoff(attempts)
            log.info("%s", self.redact(f"{self.source}: {failure}; retrying in {wait:.1f} s"))
            self.pacer.defer(wait)

    def _error(
        self, message: str, status: int | None, attempts: int, *, transient: bool = True, unreachable: str | None = None
    ) -> ApiError:
        if status == 429 and self._rate_limit_hint:
            message = f"{message} ({self._rate_limit_hint})"
        return ApiError(
            self.source,
            self.redact(message),
            status=status,
            attempts=attempts,
            transient=transient,
            unreachable=unreachable,
        )

    def _refuse_unreachable(self, url: httpx.URL, attempts: int) -> None:
        """Fail at once, with no connection attempt, when this run already found `url`'s host unreachable."""
        memory = unreachable_hosts.get()
        reason = memory.reason(url.host) if memory is not None else None
        if reason is not None:
            raise self._error(
                f"{url.host}: {reason} earlier in this run; not retried", None, attempts, unreachable=reason
            )

    # -- conveniences --

    async def get_json(self, path: str, *, params: Mapping[str, Any] | None = None, not_found_ok: bool = True) -> Any:
        """Parsed JSON, or None on 404 when `not_found_ok`."""
        expect = (200, 404) if not_found_ok else (200,)
        return (await self.request("GET", path, params=params, expect=expect)).data

    async def post_json(
        self, path: str, body: Any, *, params: Mapping[str, Any] | None = None, cacheable: bool = True
    ) -> Any:
        """POST a JSON body (idempotent search/rerank/embed bodies are cacheable) and parse the JSON reply."""
        return (await self.request("POST", path, params=params, json_body=body, cacheable=cacheable)).data


class ApiClient:
    """Common shell of a live client: owns one HttpBase, closes it, and never shows secrets in repr."""

    name: str
    http: HttpBase

    async def aclose(self) -> None:
        await self.http.aclose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, hosts={sorted(self.http.hosts)})"
