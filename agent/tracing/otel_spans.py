"""The OpenInference spans LangChain's instrumentation cannot make, built from what a finished run holds.

OpenInference's LangChain tracer gives one span per graph node and per chat-model call. SPARKIT's retrievals (the
queries each node sent and the records they found, with their scores), its stance readings (the local judges read a
claim against a passage outside LangChain) and its source API calls are not LangChain runs, so they are added here
after the run, each as a child of the node span that made it, timed within that node. The data is what the local
trace already reads (agent.tracing.session.query_records, the answer's ledger and claim dossiers, the CallLog), so the
two views agree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, Tracer
from opentelemetry.util.types import AttributeValue

from agent.records import Answer, LedgerEntry
from agent.tracing.events import CallLog
from agent.tracing.otel_setup import NodeSpan
from agent.tracing.session import query_records
from agent.tracing.summarize import cut

KIND = "openinference.span.kind"
MAX_DOCUMENTS = 50
"""Hits per retrieval span (the local trace keeps as many)."""


def child(tracer: Tracer, parent: NodeSpan, name: str, attributes: Mapping[str, AttributeValue]) -> None:
    """A finished span under `parent`, spanning the parent's time (the exact moment inside the node is not kept)."""
    context = trace.set_span_in_context(NonRecordingSpan(parent.context))
    span = tracer.start_span(name, context=context, start_time=parent.start, attributes=dict(attributes))
    span.end(end_time=parent.end)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _node_span(nodes: Mapping[str, list[NodeSpan]], node: str, root: NodeSpan, index: int | None = None) -> NodeSpan:
    """The span of `node`'s index-th run (its last when out of range), or the run's root when it has none."""
    spans = nodes.get(node) or []
    if not spans:
        return root
    return spans[index] if index is not None and 0 <= index < len(spans) else spans[-1]


def retrieval_spans(
    tracer: Tracer, root: NodeSpan, nodes: Mapping[str, list[NodeSpan]], state: Mapping[str, Any]
) -> int:
    """A RETRIEVER span per query the run sent, under the node run of its round, with the records it brought into
    the pool as retrieval.documents (id, title and abstract head, score, and every score the source and reranker
    gave in the metadata)."""
    pool = state.get("pool") or {}
    count = 0
    for query in query_records(state):
        parent = _node_span(nodes, query["node"], root, query["round"] - 1 if query["node"] == "retrieve" else None)
        attributes: dict[str, AttributeValue] = {
            KIND: "RETRIEVER",
            "input.value": query["query"],
            "input.mime_type": "text/plain",
            "metadata": _json({"round": query["round"], "via": query["via"], "hits": len(query["hits"])}),
        }
        for i, hit in enumerate(query["hits"][:MAX_DOCUMENTS]):
            record = pool.get(hit["id"])
            prefix = f"retrieval.documents.{i}.document"
            attributes[f"{prefix}.id"] = hit["id"]
            attributes[f"{prefix}.content"] = cut(f"{hit['title']}\n\n{getattr(record, 'abstract', '') or ''}", 1000)
            score = hit.get("rerank", hit.get("fused", hit.get("bm25", hit.get("dense"))))
            if isinstance(score, int | float):
                attributes[f"{prefix}.score"] = float(score)
            attributes[f"{prefix}.metadata"] = _json({k: v for k, v in hit.items() if k != "id"})
        child(tracer, parent, f"search {query['via']}", attributes)
        count += 1
    return count


def _reading(entry: LedgerEntry, statement: str) -> dict[str, AttributeValue]:
    return {
        KIND: "EVALUATOR",
        "input.value": _json({"statement": statement, "passage": cut(entry.text, 2000), "record_id": entry.record_id}),
        "input.mime_type": "application/json",
        "output.value": _json({"stance": str(entry.stance), "confidence": round(entry.confidence, 4)}),
        "output.mime_type": "application/json",
        "metadata": _json({"judged_by": entry.judged_by or "offline judge", "via": entry.via, "weight": entry.weight}),
    }


def judge_spans(tracer: Tracer, root: NodeSpan, nodes: Mapping[str, list[NodeSpan]], answer: Answer) -> int:
    """An EVALUATOR span per stance reading the answer kept: the court's ledger (hypothesis vs passage, under the
    last court run) and each claim's dossier (claim vs passage, under the last verify_claims run)."""
    statements = {h.id: h.statement for h in answer.hypotheses}
    count = 0
    court = _node_span(nodes, "court", root)
    for entry in answer.ledger:
        child(tracer, court, "stance judge", _reading(entry, statements.get(entry.hypothesis_id, entry.hypothesis_id)))
        count += 1
    verify = _node_span(nodes, "verify_claims", root)
    for claim in answer.claims:
        for entry in claim.dossier:
            child(tracer, verify, "stance judge", _reading(entry, claim.text))
            count += 1
    return count


def source_call_spans(tracer: Tracer, root: NodeSpan, nodes: Mapping[str, list[NodeSpan]], calls: CallLog) -> int:
    """A TOOL span per logical HTTP call to a literature API, under the node that made it (host, path without
    secret parameters, status, attempts, cache hit, time, error)."""
    count = 0
    for event, node in zip(calls, calls.nodes, strict=True):
        data = event.model_dump() if hasattr(event, "model_dump") else dict(event)
        parent = _node_span(nodes, node, root) if node else root
        attributes: dict[str, AttributeValue] = {
            KIND: "TOOL",
            "tool.name": str(data.get("source") or "source"),
            "input.value": f"{data.get('method')} {data.get('host')}{cut(str(data.get('path') or ''), 300)}",
            "input.mime_type": "text/plain",
            "output.value": _json({k: data.get(k) for k in ("status", "attempts", "cache_hit", "elapsed_s", "error")}),
            "output.mime_type": "application/json",
        }
        child(tracer, parent, f"source call {data.get('source')}", attributes)
        count += 1
    return count


def answer_attributes(answer: Answer) -> dict[str, AttributeValue]:
    """The root span's output (the answer's text) and the run's totals: LLM tokens and dollars as OpenInference
    names them on the run (llm.token_count.*, llm.cost.total) plus SPARKIT's own counts and usage per node."""
    usage = answer.usage
    return {
        "output.value": answer.answer,
        "output.mime_type": "text/plain",
        "sparkit.status": answer.status.value,
        "sparkit.verdict": str(answer.verdict or ""),
        "sparkit.confidence": float(answer.confidence),
        "sparkit.citations": [c.id for c in answer.citations],
        "sparkit.usage.llm_calls": usage.llm_calls,
        "sparkit.usage.source_calls": usage.source_calls,
        "sparkit.usage.tokens_in": usage.tokens_in,
        "sparkit.usage.tokens_out": usage.tokens_out,
        "sparkit.usage.cost_usd": float(usage.cost_usd),
        "sparkit.usage.by_node": _json(usage.by_node),
    }
