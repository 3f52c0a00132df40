"""Failures of a call: the ApiError every client raises (status, attempts, transient or not), a one-line reason
read from an error body, and body parsing that turns HTML pages and truncated bodies into clean SourceErrors."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from agent.common.text import truncate
from agent.errors import SourceError

_HTML_TITLE = re.compile(r"<title>(.*?)</title>", re.I | re.S)

ParseKind = Literal["json", "xml", "text"]


class ApiError(SourceError):
    """A SourceError raised by the HTTP base, with what tracing needs: the last status, the attempts made
    and whether the failure was transient (network, timeout, retry statuses) rather than a client bug; `unreachable`
    says why the host could not be connected to at all ('connection refused', 'DNS lookup failed'), else None."""

    def __init__(
        self,
        source: str,
        message: str,
        *,
        status: int | None = None,
        attempts: int = 0,
        transient: bool = False,
        unreachable: str | None = None,
    ):
        super().__init__(source, message)
        self.status = status
        self.attempts = attempts
        self.transient = transient
        self.unreachable = unreachable


class HostNotAllowedError(ApiError):
    """A URL outside the allowlist: the client refuses to contact it."""


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


ErrorReader = Callable[[Any], str | None]
"""A client's reader for its API's own JSON error shape (PubChem's `Fault`, Crossref's message list): the message, or
None to fall back to the common `error` / `message` / `detail` string."""


def error_detail(content: bytes, headers: Mapping[str, str], read_error: ErrorReader | None = None) -> str:
    """A one-line reason from an error body: the client's reader or the common JSON error fields, an HTML title, or
    the first text line."""
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
    return truncate((read_error(body) if read_error else None) or common_error_message(body) or text, 200)


def common_error_message(body: Any) -> str | None:
    """The first non-empty string among a JSON body's `error`, `message` and `detail` fields."""
    if not isinstance(body, dict):
        return None
    return next(
        (value for key in ("error", "message", "detail") if isinstance(value := body.get(key), str) and value), None
    )


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
            raise SourceError(
                source, f"malformed JSON response (HTTP {response.status}; truncated or not JSON)"
            ) from None
    try:
        return ET.fromstring(response.content)
    except ET.ParseError:
        raise SourceError(source, f"malformed XML response (HTTP {response.status}; truncated or not XML)") from None
