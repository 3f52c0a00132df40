"""The one redaction function for everything SPARKIT writes or prints: traces, logs, errors, JSON output.

Why one function: a key can reach text through many paths (a URL in an error, a header in a debug dump, an
echoed env value), so every writer passes its text through `redact` instead of each guessing its own rules.
It masks (1) the literal values of environment variables whose names end in `_API_KEY`, `_KEY`, `_TOKEN`,
`_SECRET` or `_PASSWORD` (read at call time, so keys set after import are covered), (2) values registered
with `register_secret` (keys passed in code rather than through the environment), and (3) secret-shaped
text: `sk-…` keys, `Bearer …` credentials, `Authorization` / `x-api-key` / `X-Subscription-Token` headers,
`api_key=` / `access_token=` anywhere and `key=` / `token=` as URL query parameters (after `?` or `&`; in prose,
`key=value` is not a secret).
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from typing import TextIO

MASK = "[REDACTED]"
SECRET_ENV_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
MIN_SECRET_LEN = 6  # shorter env values ("1", "true") are flags, not keys; masking them would shred text
MIN_REGISTERED_LEN = 4  # a value registered explicitly is known to be a key, so shorter ones are masked too

_registered: set[str] = set()
_lock = threading.Lock()

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # header-style pairs first, so "Authorization: Bearer x" keeps its header name
    (
        re.compile(
            r"(?i)\b(authorization|proxy-authorization|x-api-key|x-subscription-token|crossref-plus-api-token)"
            r"(\"?'?\s*[:=]\s*\"?'?)(bearer\s+|basic\s+|token\s+)?[^\s\"',;}&]+"
        ),
        rf"\1\2\3{MASK}",
    ),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{4,}"), f"Bearer {MASK}"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), MASK),
    (re.compile(r"(?i)\b(api_key|apikey|api-key|access_token|auth_token)(=)[^&\s\"'<>]+"), rf"\1\2{MASK}"),
    # `key=` and `token=` only as URL query parameters: "What does key=value mean?" is a question, not a secret
    (re.compile(r"(?i)(?:(?<=[?&])|^)(token|key)(=)[^&\s\"'<>]+"), rf"\1\2{MASK}"),
    (
        re.compile(
            r"(?i)([\"'](?:api_key|apikey|api-key|access_token|auth_token|token|x-api-key|authorization)[\"']\s*:\s*[\"'])[^\"']+"
        ),
        rf"\1{MASK}",
    ),
)
_SECRET_NAME = re.compile(
    r"(?i)^(api[_-]?key|apikey|key|token|access[_-]?token|auth[_-]?token|secret|password|authorization|"
    r"proxy-authorization|x-api-key|x-subscription-token|crossref-plus-api-token)$|(_api_key|_token|_secret|_password)$"
)


def register_secret(value: str | None) -> None:
    """Also mask this literal value (a key passed in code, not through the environment)."""
    if value and len(value) >= MIN_REGISTERED_LEN:
        with _lock:
            _registered.add(value)


def secret_values() -> list[str]:
    """Every literal to mask right now, longest first (so a key containing another is masked whole)."""
    values = {v.strip() for name, v in os.environ.items() if name.upper().endswith(SECRET_ENV_SUFFIXES) and v}
    values = {v for v in values if len(v) >= MIN_SECRET_LEN}
    with _lock:
        values |= _registered
    return sorted(values, key=len, reverse=True)


def is_secret_name(name: str) -> bool:
    """A dict key or header name whose value is a credential (`api_key`, `Authorization`, `BRAVE_API_KEY`)."""
    return bool(_SECRET_NAME.search(name.strip()))


def redact(text: str) -> str:
    """`text` with every known secret value and secret-shaped token replaced by [REDACTED]."""
    if not text:
        return text
    for secret in secret_values():
        if secret in text:
            text = text.replace(secret, MASK)
        escaped = json.dumps(secret)[1:-1]  # the same key inside a JSON string (quotes, backslashes escaped)
        if escaped != secret and escaped in text:
            text = text.replace(escaped, MASK)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFilter(logging.Filter):
    """Masks secrets in a log record's final message before any handler formats it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        if record.exc_info and record.exc_info[1] is not None:
            # tracebacks render str(exc); keep the type, drop a message that carried a secret
            exc = record.exc_info[1]
            if redact(str(exc)) != str(exc):
                record.exc_info = None
                record.exc_text = None
                record.msg = f"{clean} ({type(exc).__name__}: {redact(str(exc))})"
        return True


class _CurrentStderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is at emit time (like logging's last-resort handler), so a handler
    installed once keeps working when stderr is swapped (tests capturing output, embedding)."""

    @property
    def stream(self) -> TextIO:
        import sys

        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:  # StreamHandler.__init__ assigns it; the property decides
        return None


def install_log_redaction(level: int = logging.WARNING) -> None:
    """Attach RedactingFilter to every root handler (adding a stderr handler when there is none), so no
    log line from any library shows a key. Idempotent."""
    root = logging.getLogger()
    if not root.handlers:
        stderr_handler = _CurrentStderrHandler()
        stderr_handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        stderr_handler.setLevel(level)
        root.addHandler(stderr_handler)
    for handler in root.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
