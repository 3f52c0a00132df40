"""Turn run inputs and outputs into small, JSON-safe, secret-free values for a trace.

Every node receives the whole research state, so writing it verbatim would repeat the record pool (hundreds
of abstracts) in every run of every trace. Large values are summarised instead: the pool becomes its count
and ids, long lists keep their head and a count, strings are cut, records shrink to id/title/year/source,
and values under credential-named keys are masked.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from agent.common.redact import MASK, is_secret_name, redact

POOL_KEYS = frozenset({"pool"})
ID_LIST_KEYS = frozenset({"ranked", "hopped_ids"})
MAX_DEPTH = 6


@dataclasses.dataclass(frozen=True)
class Limits:
    """How much of a value to keep."""

    max_str: int = 400
    max_items: int = 12
    head_items: int = 8
    max_ids: int = 25


DEFAULT = Limits()
LLM = Limits(max_str=4000, max_items=40, head_items=30)


def cut(text: str, limit: int) -> str:
    """The text, redacted, cut to `limit` characters with a note of how much was dropped."""
    text = redact(text)
    return text if len(text) <= limit else f"{text[:limit]}…(+{len(text) - limit} chars)"


def summarize(value: Any, limits: Limits = DEFAULT, _depth: int = 0) -> Any:
    """A JSON-safe summary of `value` (see module docstring)."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, str):
        return cut(value, limits.max_str)
    if isinstance(value, enum.Enum):
        return summarize(value.value, limits, _depth)
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if _depth >= MAX_DEPTH:
        return cut(repr(value), 120)
    if _is_record(value):
        return _record_brief(value, limits)
    if isinstance(value, BaseModel):
        return summarize(value.model_dump(mode="json", exclude_none=True), limits, _depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return summarize(dataclasses.asdict(value), limits, _depth + 1)
    if isinstance(value, Mapping):
        return _summarize_mapping(value, limits, _depth)
    if isinstance(value, (list, tuple, set, frozenset)):
        return _summarize_list(list(value), limits, _depth)
    return cut(repr(value), 200)


def _summarize_mapping(value: Mapping[Any, Any], limits: Limits, depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    items = list(value.items())
    for key, item in items[: limits.max_items * 4]:
        name = str(key)
        if is_secret_name(name) and item:
            out[name] = MASK
        elif name in POOL_KEYS and isinstance(item, Mapping):
            ids = [str(k) for k in item]
            out[name] = {
                "count": len(ids),
                "ids": ids[: limits.max_ids],
                **({"more_ids": len(ids) - limits.max_ids} if len(ids) > limits.max_ids else {}),
            }
        elif name in ID_LIST_KEYS and isinstance(item, list):
            ids = [str(getattr(x, "record_id", x)) for x in item]
            out[name] = {"count": len(ids), "ids": ids[: limits.max_ids]}
        else:
            out[name] = summarize(item, limits, depth + 1)
    if len(items) > limits.max_items * 4:
        out["…"] = f"{len(items) - limits.max_items * 4} more keys"
    return out


def _summarize_list(items: list[Any], limits: Limits, depth: int) -> list[Any]:
    if len(items) <= limits.max_items:
        return [summarize(x, limits, depth + 1) for x in items]
    head = [summarize(x, limits, depth + 1) for x in items[: limits.head_items]]
    return [*head, {"…": f"{len(items) - limits.head_items} more items ({len(items)} in all)"}]


def _is_record(value: Any) -> bool:
    from agent.literature import Record

    return isinstance(value, Record)


def _record_brief(record: Any, limits: Limits) -> dict[str, Any]:
    brief = {"id": record.id, "title": cut(record.title, 120), "year": record.year, "source": record.source}
    return {k: v for k, v in brief.items() if v not in (None, "")}
