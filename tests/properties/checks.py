"""What every property test asks of an error: the parser's own typed error, with one line of text (no traceback)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def result_or_typed_error(call: Callable[[], Any], error: type[BaseException] | tuple[type[BaseException], ...]) -> Any:
    """`call()`'s result, or None when it raised `error` with a one-line message; any other exception propagates,
    so Hypothesis reports it (with the input that raised it)."""
    try:
        return call()
    except error as exc:
        message = str(exc)
        assert message.strip() and "\n" not in message and "Traceback" not in message, repr(message)
        return None
