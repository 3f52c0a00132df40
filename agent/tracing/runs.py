"""Flatten a LangChain run tree into trace records: one dict per run, parents before children.

Each record keeps what a reviewer needs to follow a run: ids (run, parent, trace), name, run type, the
LangGraph node and step, start/end/latency, summarised inputs and outputs, the error, and for LLM runs the
model, tokens and dollar cost (priced with agent.llm.roles.PRICES_PER_MTOK). A node's inner runnable repeats its
parent's inputs and outputs, so those are stored once and marked `same_as_parent`.

A graph node's input is the whole state, which says little about the node; its output is the update it made, the
state change. So a node run keeps its outputs and, of its inputs, only the state's keys and round
(`{"state_keys": [...], "round": 2}`): the trace shows what each node changed, not a dump of the state per node.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from agent.tracing.summarize import DEFAULT, LLM, cut, summarize


def walk(run: Any) -> Iterator[Any]:
    """The run and its descendants, depth first, children in start order."""
    yield run
    for child in sorted(run.child_runs or [], key=lambda r: (r.start_time, str(r.dotted_order or ""))):
        yield from walk(child)


def _seconds(start: datetime | None, end: datetime | None) -> float | None:
    return round((end - start).total_seconds(), 6) if start and end else None


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def metadata_of(run: Any) -> Mapping[str, Any]:
    return (run.extra or {}).get("metadata") or {}


def model_of(run: Any) -> str | None:
    """'provider:model' as the price table spells it, from LangChain's ls_* metadata."""
    meta = metadata_of(run)
    params = (run.extra or {}).get("invocation_params") or {}
    model = meta.get("ls_model_name") or params.get("model") or params.get("model_name")
    provider = meta.get("ls_provider")
    if provider and model:
        return f"{provider}:{model}"
    return model or provider


def _usage_from(obj: Any) -> tuple[int, int] | None:
    """(input, output) tokens from a message, a serialized message or an llm_output dict."""
    if obj is None:
        return None
    usage = getattr(obj, "usage_metadata", None)
    if usage is None and isinstance(obj, Mapping):
        usage = obj.get("usage_metadata") or (obj.get("kwargs") or {}).get("usage_metadata")
        if usage is None:
            usage = obj.get("token_usage") or obj.get("usage")
    if not isinstance(usage, Mapping):
        return None
    tokens_in = usage.get("input_tokens", usage.get("prompt_tokens"))
    tokens_out = usage.get("output_tokens", usage.get("completion_tokens"))
    if tokens_in is None and tokens_out is None:
        return None
    return int(tokens_in or 0), int(tokens_out or 0)


def llm_tokens(run: Any) -> tuple[int, int] | None:
    """Tokens an LLM run reported (summed over its generations), or None when it reported none."""
    outputs = run.outputs or {}
    found: list[tuple[int, int]] = []
    for batch in outputs.get("generations") or []:
        for generation in batch or []:
            message = (
                generation.get("message") if isinstance(generation, Mapping) else getattr(generation, "message", None)
            )
            usage = _usage_from(message)
            if usage:
                found.append(usage)
    if not found:
        usage = _usage_from(outputs.get("llm_output"))
        if usage:
            found.append(usage)
    if not found:
        return None
    return sum(u[0] for u in found), sum(u[1] for u in found)


def price_of(model: str | None) -> tuple[float, float] | None:
    """(input, output) dollars per million tokens, matching 'provider:model' or the bare model name."""
    from agent.llm.roles import PRICES_PER_MTOK

    if not model:
        return None
    if model in PRICES_PER_MTOK:
        return PRICES_PER_MTOK[model]
    bare = model.split(":", 1)[-1]
    for spec, price in PRICES_PER_MTOK.items():
        if spec.split(":", 1)[-1] == bare:
            return price
    return None


def llm_cost(model: str | None, tokens_in: int, tokens_out: int) -> float | None:
    price = price_of(model)
    if price is None:
        return None
    return round((tokens_in * price[0] + tokens_out * price[1]) / 1e6, 8)


def _fingerprint(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def state_keys(state: Mapping[str, Any]) -> dict[str, Any]:
    """What a node run keeps of the state it received: the keys present and the round."""
    out: dict[str, Any] = {"state_keys": sorted(str(k) for k in state)}
    if isinstance(state.get("round"), int):
        out["round"] = state["round"]
    return out


def run_records(root: Any) -> list[dict[str, Any]]:
    """One record per run of the tree under `root` (see module docstring)."""
    records: list[dict[str, Any]] = []
    originals: dict[str, tuple[str, dict[str, Any]]] = {}  # run id -> (name, unmarked summaries)
    for run in walk(root):
        limits = LLM if run.run_type in ("llm", "chat_model") else DEFAULT
        meta = metadata_of(run)
        parent_id = str(run.parent_run_id) if run.parent_run_id else None
        record: dict[str, Any] = {
            "kind": "run",
            "id": str(run.id),
            "parent_id": parent_id,
            "trace_id": str(run.trace_id) if getattr(run, "trace_id", None) else str(root.id),
            "dotted_order": run.dotted_order,
            "name": run.name,
            "run_type": run.run_type,
            "node": meta.get("langgraph_node"),
            "step": meta.get("langgraph_step"),
            "tags": list(run.tags or []),
            "start": _iso(run.start_time),
            "end": _iso(run.end_time),
            "latency_s": _seconds(run.start_time, run.end_time),
            "inputs": summarize(run.inputs or {}, limits),
            "outputs": summarize(run.outputs or {}, limits),
            "error": cut(run.error, 2000) if run.error else None,
        }
        originals[record["id"]] = (run.name, {"inputs": record["inputs"], "outputs": record["outputs"]})
        parent_name, parent_values = originals.get(parent_id or "", ("", {}))
        if parent_name == run.name:
            for key in ("inputs", "outputs"):
                if record[key] and _fingerprint(record[key]) == _fingerprint(parent_values[key]):
                    record[key] = {"same_as_parent": True}
        if (
            run.name == meta.get("langgraph_node")
            and isinstance(run.inputs, Mapping)
            and record["inputs"] != {"same_as_parent": True}
        ):
            record["inputs"] = state_keys(run.inputs)
        if run.run_type in ("llm", "chat_model"):
            model = model_of(run)
            tokens = llm_tokens(run)
            record["model"] = model
            if tokens is not None:
                record["tokens_in"], record["tokens_out"] = tokens
                record["cost_usd"] = llm_cost(model, *tokens)
        records.append(record)
    return records
