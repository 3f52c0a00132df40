"""State, updates and answers as JSON for the API and the events table: pydantic models by their JSON dump, enums by
value, non-finite floats as null (PostgreSQL's jsonb refuses NaN), anything else unknown by its str."""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]


def jsonable(value: Any) -> JsonValue:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, BaseModel):
        return jsonable(value.model_dump(mode="json"))
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)
