"""A model's reply as the schema asked for: strict JSON first, then near-valid JSON repaired; or why it is unusable."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)


def strip_think(text: str) -> str:
    return _THINK.sub("", text or "").strip()


def _extract_json(text: str) -> str:
    text = strip_think(text)
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fenced:
        text = fenced.group(1)
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    return text[start:] if start >= 0 else text


def parse_reply(text: str, schema: type[T]) -> T:
    """The schema from a model's text: strict JSON first, then near-valid JSON repaired (trailing commas, single
    quotes, a missing bracket, prose around it); raises ValidationError or ValueError when neither fits."""
    candidate = _extract_json(text)
    try:
        return schema.model_validate_json(candidate)
    except ValidationError as strict_error:
        from json_repair import repair_json

        repaired = repair_json(candidate, return_objects=True)
        if isinstance(repaired, list) and len(schema.model_fields) == 1:  # a bare list for a one-list schema
            repaired = {next(iter(schema.model_fields)): repaired}
        if not isinstance(repaired, dict) or not repaired:
            raise strict_error
        return schema.model_validate(repaired)


def unusable_reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        if not errors:
            return "reply: invalid"
        where = ".".join(str(p) for p in errors[0]["loc"]) or "reply"
        return f"{where}: {errors[0]['msg']}"
    return f"{type(exc).__name__}: {str(exc)[:120]}"


def parsed_or_reason(text: str, schema: type[T]) -> T | str:
    try:
        return parse_reply(text, schema)
    except (ValidationError, ValueError) as exc:
        return unusable_reason(exc)


@dataclass(frozen=True)
class Unusable:
    """A reply that could not be used: why, and the reply itself (a retry shows the model both)."""

    reason: str
    reply: str


def parsed_or_unusable(text: str, schema: type[T]) -> T | Unusable:
    result = parsed_or_reason(text, schema)
    return Unusable(result, text) if isinstance(result, str) else result
