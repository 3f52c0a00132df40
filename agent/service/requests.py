"""What a request to `sparkit serve` may carry, checked before anything is stored: the JSON body (at most
`max_body_bytes`: 413 beyond, 400 when it is not a JSON object), its fields (422 with the field and the reason), the
graph's input and the run's settings (validated as `Context`, so a typo is a 422, not a run that ignores it)."""

from __future__ import annotations

import json
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request

from agent.errors import InputError

GRAPH_ID = "sparkit"
ASSISTANT_ID = str(uuid.uuid5(uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8"), GRAPH_ID))
"""The one assistant's id, as `langgraph dev` derives it from the graph id (langgraph-api's NAMESPACE_GRAPH), so a
client that found it on either server finds it on both; the graph id is accepted in its place, as there."""
STREAM_MODES = ("values", "updates", "custom", "debug", "checkpoints", "tasks")


class HttpError(Exception):
    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status = status
        self.detail = detail


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ThreadCreate(_Body):
    thread_id: str | None = Field(default=None, max_length=100)
    metadata: dict[str, Any] = Field(default_factory=dict)
    if_exists: Literal["raise", "do_nothing"] = "raise"


BIGINT_MAX = 2**63 - 1
"""The largest count or position a query binds (PostgreSQL's bigint): a larger one is refused with a 422."""


class ThreadSearch(_Body):
    metadata: dict[str, Any] = Field(default_factory=dict)
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=BIGINT_MAX)


class HistoryQuery(_Body):
    limit: int = Field(default=10, ge=1, le=1000)
    before: dict[str, Any] | str | None = None
    checkpoint: dict[str, Any] | None = None


class StateUpdate(_Body):
    values: dict[str, Any] | list[Any] | None = None
    checkpoint: dict[str, Any] | None = None
    checkpoint_id: str | None = None
    as_node: str | None = Field(default=None, max_length=100)


class StateAt(_Body):
    checkpoint: dict[str, Any]
    subgraphs: bool = False


class RunCreate(_Body):
    assistant_id: str = ASSISTANT_ID
    input: dict[str, Any] | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    stream_mode: str | list[str] = "values"
    multitask_strategy: Literal["reject"] | None = None
    if_not_exists: Literal["reject", "create"] | None = None
    on_disconnect: Literal["continue", "cancel"] | None = None
    # accepted by the protocol, not by this server: refused by name when set
    command: Any = None
    interrupt_before: Any = None
    interrupt_after: Any = None
    webhook: Any = None
    checkpoint: Any = None
    checkpoint_id: Any = None
    after_seconds: Any = None
    feedback_keys: Any = None


UNSUPPORTED = ("webhook", "after_seconds", "feedback_keys")
_INPUT_KEYS = {"question", "options", "mode", "documents"}


def parse(model: type[BaseModel], data: Any) -> Any:
    try:
        return model.model_validate(data if data is not None else {})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise HttpError(422, f"{where}: {first['msg']}") from None


async def read_body(request: Request, max_bytes: int) -> Any:
    """The JSON body, read up to `max_bytes` (413 beyond), or None when empty."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise HttpError(413, f"request body of {int(declared)} bytes is over the limit of {max_bytes} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise HttpError(413, f"request body is over the limit of {max_bytes} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return None
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HttpError(400, f"the body is not valid JSON: {str(exc)[:120]}") from None
    except RecursionError:
        raise HttpError(400, "the body nests deeper than any request of this API") from None
    if not isinstance(data, dict):
        raise HttpError(400, f"the body must be a JSON object, not {type(data).__name__}")
    storable(data, "body")
    return data


def storable(value: Any, where: str) -> None:
    """422 naming where a string PostgreSQL cannot store sits (a NUL character, an unpaired surrogate: valid in JSON,
    refused by its text and jsonb types), so that it is refused here and not by a query, as a 500."""
    pending = [(value, where)]
    while pending:
        item, at = pending.pop()
        if isinstance(item, str):
            if "\x00" in item or (not item.isascii() and not _encodes(item)):
                raise HttpError(422, f"{at}: text with a NUL character or an unpaired surrogate is not accepted")
        elif isinstance(item, dict):
            pending += [(key, at) for key in item]
            pending += [(inner, f"{at}.{str(key)[:40]}") for key, inner in item.items()]
        elif isinstance(item, list):
            pending += [(inner, f"{at}[{n}]") for n, inner in enumerate(item)]


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def graph_input(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """The validated question (None resumes the thread's last run)."""
    if data is None:
        return None
    from agent.inputs import validate_mode, validate_question

    unknown = sorted(set(data) - _INPUT_KEYS)
    if unknown:
        raise HttpError(422, f"input.{unknown[0]}: not an input of the graph (question, options, mode, documents)")
    try:
        mode = validate_mode(data.get("mode"))
        question, options = validate_question(data.get("question"), data.get("options"), mode)
    except InputError as exc:
        raise HttpError(422, f"input: {exc}") from None
    documents = data.get("documents")
    if documents is not None and (not isinstance(documents, list) or not all(isinstance(d, dict) for d in documents)):
        raise HttpError(422, "input.documents: a list of objects {id, title, abstract or text}")
    graph_input: dict[str, Any] = {"question": question, "options": options, "mode": mode}
    if documents:
        graph_input["documents"] = documents
    return graph_input


def run_settings(body: RunCreate, stored: dict[str, Any] | None) -> dict[str, Any]:
    """The run's explicit settings tree: the stored one when resuming, the request's context and configurable on top."""
    from agent.api import make_context
    from agent.config import merge_trees, settings_tree

    configurable = {
        k: v
        for k, v in ((body.config or {}).get("configurable") or {}).items()
        if k not in ("thread_id", "checkpoint_id", "checkpoint_ns", "run_id")
    }
    try:
        tree = merge_trees(stored or {}, settings_tree(configurable), settings_tree(body.context or {}))
        return make_context(tree).explicit()
    except InputError as exc:
        raise HttpError(422, f"context: {exc}") from None


def int_param(value: str | None, default: int) -> int:
    """A count or position from a query or header: below 0 reads as 0 (langgraph-sdk sends Last-Event-ID -1 for
    "from the start"); beyond PostgreSQL's bigint, which the query binds it to, is a 422, not a failed query."""
    if value is None:
        return default
    try:
        number = max(0, int(value))
    except ValueError:
        raise HttpError(422, f"{value[:20]!r} is not a number") from None
    if number > BIGINT_MAX:
        raise HttpError(422, f"{value[:20]!r} is over the largest count accepted, {BIGINT_MAX}")
    return number


def assistant_or_404(assistant_id: str) -> None:
    if assistant_id not in (ASSISTANT_ID, GRAPH_ID):
        raise HttpError(
            404, f"assistant {assistant_id[:100]!r} not found (this server has {GRAPH_ID!r}, {ASSISTANT_ID})"
        )
