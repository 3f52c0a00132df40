"""Reading JSON Lines with errors that name the line: corpora, trace files and the trace index share it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any


def parse_jsonl(lines: Iterable[str], error: Callable[[int, str], Exception]) -> Iterator[tuple[int, Any]]:
    """(1-based line number, parsed value) for every non-blank line.

    A line that is not JSON raises `error(line number, parser message)`, so each caller keeps its own error type
    and wording.
    """
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(number, exc.msg) from None
        yield number, value
