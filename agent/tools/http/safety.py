"""What keeps a client safe: keys read into SecretStr, secret query parameters kept out of every URL that is
stored or shown, and the host allowlist every request and redirect must pass."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from urllib.parse import urlencode

import httpx
from pydantic import SecretStr

from agent.common.redact import RedactingFilter
from agent.errors import ConfigurationError
from agent.tools.http.errors import HostNotAllowedError

SECRET_PARAMS = frozenset({"api_key", "apikey", "key", "token", "access_token"})
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "x-subscription-token", "crossref-plus-api-token"})


def redact_http_logs() -> None:
    """Give httpx's and httpcore's loggers the project's redacting filter: httpx logs every request URL at INFO,
    query string included. Idempotent; every HttpBase calls it, so it holds before the first request (and
    importing this package changes no logger)."""
    for name in ("httpx", "httpcore"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(RedactingFilter())


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


def public_query(url: httpx.URL) -> str:
    """The URL's query string without secret parameters (`api_key`, `token`, ...): the one place they are stripped."""
    return urlencode([(k, v) for k, v in url.params.multi_items() if k.lower() not in SECRET_PARAMS])


def public_url(url: httpx.URL) -> str:
    """The URL without secret query parameters (for cache keys, events and messages)."""
    query = public_query(url)
    base = str(url.copy_with(query=None))
    return f"{base}?{query}" if query else base


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
