"""The one async HTTP base every live client uses: pacing, retries, cache, host allowlist, redaction, events.

Why one base: each API's politeness rules (arXiv one request per 3 s on one connection, Crossref's
`x-rate-limit-*` headers, PubChem's `X-Throttling-Control`) and the safety rules (never leak a key, never
contact a host outside the client's own, never turn a bad body into a traceback) must hold for every
client, so they are written once here and each client only declares a `HostPolicy` and its endpoints.

- `HttpBase.request` is one *logical* call: cache lookup, then paced attempts with exponential backoff and
  jitter (honouring `Retry-After` in seconds or as an HTTP date) on the policy's retry statuses, a timeout
  on every attempt, manual redirects checked against the allowlist, then body parsing. Failures beyond
  retries raise `agent.errors.SourceError` with a short, redacted message.
- `ResponseCache` is a small SQLite store (method + secret-free URL + body hash) of 200/404 responses, so a
  repeated query costs nothing and a re-run works offline (stale entries are served when the network fails).
- `call_events` is a ContextVar; when a node sets it to a list, every logical call appends a `CallEvent`.
- The clock is injectable (`Clock`), so tests run pacing and backoff on virtual time.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import os
import random
import re
import sqlite3
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import urlencode

import httpx
from pydantic import BaseModel, SecretStr

from agent.errors import ConfigurationError, SourceError
from agent.redact import RedactingFilter, redact, register_secret
from agent.text import truncate
from agent.tools.parsing import dig

log = logging.getLogger(__name__)

USER_AGENT = "sparkit/0.1.0 (literature research agent; python-httpx)"
SECRET_PARAMS = frozenset({"api_key", "apikey", "key", "token", "access_token"})
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "x-subscription-token", "crossref-plus-api-token"})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_HTML_TITLE = re.compile(r"<title>(.*?)</title>", re.I | re.S)

ParseKind = Literal["json", "xml", "text"]


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


# --- clock -------------------------------------------------------------------------------------


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


# --- secrets -----------------------------------------------------------------------------------
# Keys are registered with agent.redact, the project's one redactor; httpx logs every request URL at INFO,
# query string included, so its loggers get the same redacting filter as everything else.
for _name in ("httpx", "httpcore"):
    logging.getLogger(_name).addFilter(RedactingFilter())


def env_secret(explicit: str | None, *names: str) -> SecretStr | None:
    """The explicit key, else the first set environment variable among `names`; wrapped so repr hides it."""
    value = explicit or next((os.environ[n] for n in names if os.environ.get(n)), None)
    return SecretStr(value.strip()) if value and value.strip() else None


def require_secret(explicit: str | None, var: str, what: str) -> SecretStr:
    """Like env_secret but a missing key is a ConfigurationError naming the variable (never the value)."""
    secret = env_secret(explicit, var)
    if secret is None:
        raise ConfigurationError(f"{what} needs an API key: set the {var} environment variable.")
    return secret


def public_url(url: httpx.URL) -> str:
    """The URL without secret query parameters (for cache keys, events and messages)."""
    params = [(k, v) for k, v in url.params.multi_items() if k.lower() not in SECRET_PARAMS]
    query = urlencode(params)
    base = str(url.copy_with(query=None))
    return f"{base}?{query}" if query else base


# --- errors and the host allowlist ---------------------------------------------------------------


class ApiError(SourceError):
    """A SourceError raised by the HTTP base, with what tracing needs: the last status, the attempts made
    and whether the failure was transient (network, timeout, retry statuses) rather than a client bug."""

    def __init__(self, source: str, message: str, *, status: int | None = None, attempts: int = 0, transient: bool = False):
        super().__init__(source, message)
        self.status = status
        self.attempts = attempts
        self.transient = transient


class HostNotAllowedError(ApiError):
    """A URL outside the allowlist: the client refuses to contact it."""


def host_allowed(host: str, allow_hosts: Iterable[str]) -> bool:
    """Exact host match, or a '.example.org' entry matching that domain and its subdomains."""
    host = host.lower().rstrip(".")
    for entry in allow_hosts:
        entry = entry.lower()
        if entry.startswith("."):
            if host == entry[1:] or host.endswith(entry):
                return True
        elif host == entry:
            return True
    return False


def ensure_allowed(url: str | httpx.URL, allow_hosts: Iterable[str], *, source: str = "http") -> httpx.URL:
    """The parsed URL when its scheme is http(s) and its host is allowed; HostNotAllowedError otherwise.

    URLs found in results (PDF links, landing pages) must pass through this before anything fetches them.
    """
    try:
        parsed = httpx.URL(str(url))
    except (httpx.InvalidURL, TypeError, ValueError):
        raise HostNotAllowedError(source, "refusing to contact an unparseable URL") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise HostNotAllowedError(source, f"refusing to contact a non-http URL (scheme {parsed.scheme or 'none'!r})")
    if not host_allowed(parsed.host, allow_hosts):
        raise HostNotAllowedError(source, f"refusing to contact host {parsed.host}: not on the allowlist")
    return parsed


# --- pacing ------------------------------------------------------------------------------------


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
            async with start_lock:
                wait = self._next_start - self.clock.now()
                if wait > 0:
                    await self.clock.sleep(wait)
                self._next_start = self.clock.now() + self.min_interval_s
            yield
        finally:
            async with cond:
                self.in_flight -= 1
                cond.notify_all()

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


# --- responses ---------------------------------------------------------------------------------


@dataclass
class HttpResponse:
    """A finished response (live or cached) with its body parsed as the caller asked."""

    status: int
    headers: dict[str, str]
    content: bytes
    url: str
    from_cache: bool = False
    data: Any = None

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


def _looks_like_html(content: bytes, headers: Mapping[str, str]) -> bool:
    head = content[:200].lstrip().lower()
    return "text/html" in headers.get("content-type", "") or head.startswith((b"<!doctype html", b"<html"))


def error_detail(content: bytes, headers: Mapping[str, str]) -> str:
    """A one-line reason from an error body: JSON error fields, an HTML title, or the first text line."""
    text = content.decode("utf-8", errors="replace").strip()
    if not text:
        return "empty body"
    if _looks_like_html(content, headers):
        title = _HTML_TITLE.search(text)
        return f"HTML page: {truncate(title.group(1), 80)}" if title else "HTML error page"
    try:
        body = json.loads(text)
    except ValueError:
        return truncate(text.splitlines()[0], 200)
    return truncate(_json_error_message(body) or text, 200)


def _json_error_message(body: Any) -> str | None:
    if not isinstance(body, dict):
        return None
    fault = body.get("Fault")
    if isinstance(fault, dict):  # PubChem
        details = fault.get("Details") or []
        return " ".join(str(x) for x in [fault.get("Message") or fault.get("Code"), *details] if x)
    for key in ("error", "message", "detail"):
        value = body.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, dict):  # Brave: {"error": {"detail": ...}}
            inner = value.get("detail") or value.get("message") or value.get("code")
            if isinstance(inner, str):
                return inner
        if isinstance(value, list) and value:  # Crossref: {"message": [{"message": ...}]}
            inner = dig(value, 0, "message")
            if isinstance(inner, str):
                return inner
    return None


def parse_body(source: str, response: HttpResponse, kind: ParseKind) -> Any:
    """JSON, XML element or text; a clean SourceError for HTML pages, truncated or malformed bodies."""
    if kind == "text":
        return response.text
    if kind == "json" and _looks_like_html(response.content, response.headers):
        raise SourceError(source, f"expected JSON but got an HTML page (HTTP {response.status})")
    if not response.content.strip():
        raise SourceError(source, f"empty response body (HTTP {response.status})")
    if kind == "json":
        try:
            return json.loads(response.content)
        except (ValueError, UnicodeDecodeError):
            raise SourceError(source, f"malformed JSON response (HTTP {response.status}; truncated or not JSON)") from None
    try:
        return ET.fromstring(response.content)
    except ET.ParseError:
        raise SourceError(source, f"malformed XML response (HTTP {response.status}; truncated or not XML)") from None


# --- cache -------------------------------------------------------------------------------------

_KEPT_HEADERS = ("content-type",)


class ResponseCache:
    """Persistent SQLite cache of 200 and 404 responses, keyed by method + secret-free URL + body hash.

    Entries younger than `ttl_s` are served instead of the network; older ones only when the network
    fails (so a re-run of the same question still works offline). One file, safe across processes (WAL).
    """

    def __init__(self, directory: Path | str, *, ttl_s: float = 14 * 86400.0, wall_clock: Callable[[], float] = time.time):
        self.path = Path(directory).expanduser() / "responses.sqlite"
        self.ttl_s = ttl_s
        self._wall = wall_clock
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    @staticmethod
    def make_key(method: str, url: str, body: bytes | None) -> str:
        digest = hashlib.sha256(body or b"").hexdigest()
        return hashlib.sha256(f"{method.upper()} {url} {digest}".encode()).hexdigest()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, url TEXT, status INTEGER,"
                " headers TEXT, body BLOB, stored REAL)"
            )
            self._conn = conn
        return self._conn

    def _get(self, key: str, allow_stale: bool) -> HttpResponse | None:
        with self._lock:
            row = self._connection().execute(
                "SELECT url, status, headers, body, stored FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        url, status, headers, body, stored = row
        if not allow_stale and self._wall() - stored > self.ttl_s:
            return None
        return HttpResponse(status=status, headers=json.loads(headers), content=body, url=url, from_cache=True)

    def _put(self, key: str, response: HttpResponse) -> None:
        headers = {k: v for k, v in response.headers.items() if k in _KEPT_HEADERS}
        with self._lock:
            conn = self._connection()
            conn.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                (key, response.url, response.status, json.dumps(headers), response.content, self._wall()),
            )
            conn.commit()

    async def get(self, key: str, *, allow_stale: bool = False) -> HttpResponse | None:
        return await asyncio.to_thread(self._get, key, allow_stale)

    async def put(self, key: str, response: HttpResponse) -> None:
        await asyncio.to_thread(self._put, key, response)

    def __len__(self) -> int:
        with self._lock:
            return self._connection().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


# --- the base ----------------------------------------------------------------------------------


@dataclass
class HttpOptions:
    """What every client shares and tests replace: transport, cache, clock and the jitter source."""

    transport: httpx.AsyncBaseTransport | None = None
    cache: ResponseCache | None = None
    clock: Clock = field(default_factory=SystemClock)
    rng: random.Random = field(default_factory=random.Random)
    mailto: str | None = None


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
        rate_limit_hint: str | None = None,
    ):
        self.source = source
        self.base_url = httpx.URL(base_url.rstrip("/") + "/")
        self.policy = policy or HostPolicy()
        self.options = options or HttpOptions()
        self.hosts = frozenset(h.lower() for h in (hosts or [self.base_url.host]))
        self.clock = self.options.clock
        self.pacer = Pacer(self.policy.min_interval_s, self.policy.max_concurrency, self.clock)
        values = [s.get_secret_value() if isinstance(s, SecretStr) else s for s in secrets]
        for value in values:
            register_secret(value)
        self.redact = redact
        self._headers = dict(headers or {})
        self._params = {k: v for k, v in (params or {}).items() if v is not None}
        self._adapt = adapt
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
                timeout=httpx.Timeout(self.policy.timeout_s),
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
        params = [(k, v) for k, v in url.params.multi_items() if k.lower() not in SECRET_PARAMS]
        path = url.path + (f"?{urlencode(params)}" if params else "")
        if fields.get("error"):
            fields["error"] = self.redact(fields["error"])
        events.append(
            CallEvent(
                source=self.source, host=url.host, method=method, path=self.redact(path),
                elapsed_s=round(max(0.0, self.clock.now() - started), 6), **fields,
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
            try:
                async with self.pacer.slot():
                    async with asyncio.timeout(self.policy.timeout_s):
                        raw = await self._http().request(method, url, content=body, headers=headers)
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
                failure = f"HTTP {status}: {error_detail(raw.content, lower)}"
                if status not in self.policy.retry_statuses:
                    raise self._error(failure, status, attempts, transient=False)
                delay = parse_retry_after(lower.get("retry-after"), self.clock.time())
                if delay is not None and delay > self.policy.max_retry_wait_s:
                    raise self._error(f"{failure}; server asks to wait {delay:.0f} s", status, attempts)
            if attempts >= self.policy.max_attempts:
                raise self._error(f"{failure} (gave up after {attempts} attempts)", status, attempts)
            wait = delay if delay is not None else self._backoff(attempts)
            log.info("%s", self.redact(f"{self.source}: {failure}; retrying in {wait:.1f} s"))
            self.pacer.defer(wait)

    def _error(self, message: str, status: int | None, attempts: int, *, transient: bool = True) -> ApiError:
        if status == 429 and self._rate_limit_hint:
            message = f"{message} ({self._rate_limit_hint})"
        return ApiError(self.source, self.redact(message), status=status, attempts=attempts, transient=transient)

    # -- conveniences --

    async def get_json(self, path: str, *, params: Mapping[str, Any] | None = None, not_found_ok: bool = True) -> Any:
        """Parsed JSON, or None on 404 when `not_found_ok`."""
        expect = (200, 404) if not_found_ok else (200,)
        return (await self.request("GET", path, params=params, expect=expect)).data

    async def post_json(self, path: str, body: Any, *, params: Mapping[str, Any] | None = None, cacheable: bool = True) -> Any:
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
