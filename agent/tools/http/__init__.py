"""The HTTP layer every live client uses: `base` (the call), `pacing`, `safety` (keys, allowlist), `cache`, `errors`,
and `parsing` (small helpers that read the replies).

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
- Error bodies: the common `error` / `message` / `detail` strings are read here; an API with its own shape
  (PubChem's `Fault`, Brave's nested `error`, Crossref's message list) passes its reader as `read_error`.
- Importing the package changes nothing global: the redacting filter on httpx's loggers is installed by the
  first `HttpBase`.
"""

from __future__ import annotations

from agent.tools.http.base import ApiClient, CallEvent, HeaderAdapter, HttpBase, HttpOptions, call_events
from agent.tools.http.cache import ResponseCache
from agent.tools.http.errors import ApiError, HostNotAllowedError, HttpResponse, error_detail, parse_body
from agent.tools.http.pacing import Clock, HostPolicy, Pacer, SystemClock, parse_retry_after
from agent.tools.http.safety import (
    SECRET_HEADERS,
    SECRET_PARAMS,
    ensure_allowed,
    env_secret,
    host_allowed,
    public_url,
    require_secret,
)

__all__ = [
    "SECRET_HEADERS",
    "SECRET_PARAMS",
    "ApiClient",
    "ApiError",
    "CallEvent",
    "Clock",
    "HeaderAdapter",
    "HostNotAllowedError",
    "HostPolicy",
    "HttpBase",
    "HttpOptions",
    "HttpResponse",
    "Pacer",
    "ResponseCache",
    "SystemClock",
    "call_events",
    "ensure_allowed",
    "env_secret",
    "error_detail",
    "host_allowed",
    "parse_body",
    "parse_retry_after",
    "public_url",
    "require_secret",
]
