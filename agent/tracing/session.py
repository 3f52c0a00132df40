"""One traced run: the callback, the source-call log and progress events in, one trace file out.

The API opens a TraceSession per run (when tracing is on), passes `tracer` in the run's callbacks, sets
`calls` as `agent.tools.http.call_events` while the graph runs, hands each progress event to
`record_progress`, and calls `save` at the end. `save` builds every record (meta, runs, decisions, source
calls, progress, usage per node, the answer, the records it cites) and writes them redacted.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.config import Context
from agent.records import Answer
from agent.tracing.events import CallLog, decision_records, source_call_records
from agent.tracing.runs import run_records
from agent.tracing.store import add_to_index, trace_path, write_trace
from agent.tracing.summarize import Limits, cut, summarize

TRACE_ENV = "SPARKIT_TRACE"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
ANSWER_LIMITS = Limits(max_str=4000, max_items=10_000, head_items=10_000)


def tracing_enabled(explicit: bool | None, default: bool) -> bool:
    """`explicit` when given; else SPARKIT_TRACE (1/true/yes/on or 0/false/no/off) when set; else `default`."""
    if explicit is not None:
        return explicit
    value = os.environ.get(TRACE_ENV)
    if value is None:
        return default
    value = value.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    from agent.errors import InputError

    raise InputError(f"{TRACE_ENV} must be 1/true/yes/on or 0/false/no/off (got {value[:20]!r})")


class TraceSession:
    def __init__(self, run_id: str, settings: Context, graph_input: Mapping[str, Any] | None) -> None:
        self.run_id = run_id
        self.settings = settings
        self.graph_input = dict(graph_input or {})
        self.resumed = graph_input is None
        from agent.tracing.tracer import LocalTracer  # langchain_core's tracer stack: only when a run is traced

        self.tracer = LocalTracer()
        self.calls = CallLog()
        self.progress: list[dict[str, Any]] = []
        self.final_state: Mapping[str, Any] = {}
        self.started = datetime.now(UTC)
        self._t0 = time.perf_counter()

    def record_progress(self, event: Any) -> None:
        self.progress.append(
            {"kind": "progress", "t": round(time.perf_counter() - self._t0, 4), "event": summarize(event)}
        )

    def records(
        self, answer: Answer | None, by_node: Mapping[str, Any], error: str | None = None
    ) -> list[dict[str, Any]]:
        """Everything the trace file holds for this segment, in reading order."""
        question = self.graph_input.get("question") or (answer.question if answer else "")
        out: list[dict[str, Any]] = [
            {
                "kind": "meta",
                "version": 1,
                "run_id": self.run_id,
                "started_at": self.started.isoformat(),
                "resumed": self.resumed,
                "question": cut(str(question), 2000),
                "mode": self.graph_input.get("mode"),
                "options": summarize(self.graph_input.get("options")),
                "documents": len(self.graph_input.get("documents") or []),
                "settings": summarize(self.settings.model_dump(mode="json"), Limits(max_items=200, head_items=200)),
                "error": cut(error, 1000) if error else None,
            }
        ]
        for root in self.tracer.roots:
            out += run_records(root)
            out += decision_records(sorted(root.child_runs or [], key=lambda r: r.start_time), self.settings)
        out += query_records(self.final_state)
        out += source_call_records(self.calls)
        out += self.progress
        total = answer.usage.model_dump(mode="json", exclude={"by_node"}) if answer else {}
        out.append({"kind": "usage", "total": total, "by_node": dict(by_node)})
        if answer is not None:
            out.append(
                {
                    "kind": "answer",
                    "answer": summarize(answer.model_dump(mode="json", exclude={"usage"}), ANSWER_LIMITS),
                }
            )
            out += cited_record_records(answer, self.final_state.get("pool") or {})
        return out

    def save(self, answer: Answer | None, by_node: Mapping[str, Any], error: str | None = None) -> Path:
        """Write this segment (appending when the run is resumed) and list it in the index. Blocking I/O:
        callers on an event loop run it in a thread."""
        records = self.records(answer, by_node, error)
        path = write_trace(self.run_id, records, append=self.resumed and trace_path(self.run_id).exists())
        setup = answer.usage.setup_s if answer else 0.0  # models and a first index build: not the run's time
        latency = max(
            0.0, sum(r["latency_s"] or 0.0 for r in records if r["kind"] == "run" and r["parent_id"] is None) - setup
        )
        add_to_index(
            {
                "run_id": self.run_id,
                "started_at": self.started.isoformat(),
                "question": cut(str(records[0]["question"]), 160),
                "mode": self.graph_input.get("mode"),
                "status": answer.status.value if answer else "ERROR",
                "verdict": answer.verdict if answer else None,
                "confidence": answer.confidence if answer else None,
                "cost_usd": round(answer.usage.cost_usd, 6) if answer else None,
                "llm_calls": answer.usage.llm_calls if answer else None,
                "source_calls": answer.usage.source_calls if answer else None,
                "latency_s": round(latency, 3),
                "setup_s": round(setup, 3),
                "resumed": self.resumed,
                "bytes": path.stat().st_size,
            }
        )
        return path


def cited_ids(answer: Answer) -> list[str]:
    """Every record id the answer points at: citations, sentence citations, ledger and claim evidence."""
    ids: list[str] = [c.id for c in answer.citations]
    for sentence in answer.sentences:
        ids += sentence.citations
    ids += [e.record_id for e in answer.ledger]
    for claim in answer.claims:
        ids += [*claim.supporting, *claim.refuting, *(e.record_id for e in claim.dossier)]
    return list(dict.fromkeys(ids))


QUERY_NODE = {"search": "retrieve", "entity_expansion": "retrieve", "claim_check": "verify_claims"}
"""The node that sends each kind of query (Provenance.via), so the viewers can hang a query under its node run."""


def query_records(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One `query` record per query the run sent, with the records it found that are in the pool: each hit's rank,
    BM25, dense and fused scores from its source (where the source gives them) and, for records in the last ranking,
    the reranker's rank and score: why each record is there."""
    pool = state.get("pool") or {}
    ranked = {p.record_id: (i + 1, p.score) for i, p in enumerate(state.get("ranked") or [])}
    queries: dict[tuple[int, str, str], list[dict[str, Any]]] = {}
    for rid, record in pool.items():
        for tag in record.provenance:
            if tag.via not in QUERY_NODE or not tag.query:
                continue
            hit: dict[str, Any] = {"id": rid, "title": cut(record.title, 160), "source": tag.source, **tag.scores}
            if rid in ranked:
                hit["rerank_rank"], hit["rerank"] = ranked[rid][0], round(float(ranked[rid][1]), 4)
            queries.setdefault((tag.round, tag.query, tag.via), []).append(hit)
    out = []
    for (round_, text, via), hits in sorted(queries.items(), key=lambda item: (item[0][0], item[0][2], item[0][1])):
        hits.sort(key=lambda h: (h.get("rank") is None, h.get("rank") or 0, h.get("rerank_rank") or 10**6))
        out.append(
            {
                "kind": "query",
                "round": round_,
                "query": cut(text, 300),
                "via": via,
                "node": QUERY_NODE[via],
                "hits": hits[:50],
            }
        )
    return out


def cited_passages(answer: Answer) -> dict[str, list[dict[str, Any]]]:
    """Record id -> the passages of it the run judged (the court's ledger and the claims' dossiers), each with its
    stance: what the trace viewer highlights in the record's abstract to answer "why this record"."""
    out: dict[str, list[dict[str, Any]]] = {}
    for entry in [*answer.ledger, *(e for claim in answer.claims for e in claim.dossier)]:
        passages = out.setdefault(entry.record_id, [])
        if all(p["text"] != entry.text for p in passages):
            passages.append(
                {"text": cut(entry.text, 2000), "stance": entry.stance, "confidence": round(entry.confidence, 3)}
            )
    return out


def cited_record_records(answer: Answer, pool: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A `record` entry per cited record in the pool: enough to read and find the paper, nothing fetched; its whole
    abstract and the passages of it the run judged."""
    out = []
    judged = cited_passages(answer)
    for rid in cited_ids(answer):
        record = pool.get(rid)
        if record is None:
            continue
        data = {
            "kind": "record",
            "id": rid,
            "title": cut(record.title, 400),
            "year": record.year,
            "source": record.source,
            "source_type": record.source_type,
            "venue": record.venue,
            "authors": [cut(a, 80) for a in record.authors[:8]],
            "doi": record.doi,
            "arxiv_id": f"{record.arxiv_id}{record.arxiv_version or ''}" if record.arxiv_id else None,
            "pmid": record.pmid,
            "url": cut(record.url, 400) if record.url else None,
            "alt_ids": summarize(record.alt_ids),
            "abstract": cut(record.abstract, 50_000),
            "cited": judged.get(rid, []),
        }
        out.append({k: v for k, v in data.items() if v not in (None, "", [], {})})
    return out
