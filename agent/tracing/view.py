"""A loaded trace, shaped for reading: the display tree of runs plus everything keyed for lookup.

Both the terminal view and the HTML page read traces through this, so they agree on what a reviewer sees:
a node's inner runnable (same name as the node) is folded into the node, edge functions are replaced by the
decision they followed, and LLM tokens and cost are summed up the tree.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

EDGE_FUNCTIONS = frozenset({"follow_decision"})


@dataclass
class RunNode:
    """One visible run with its visible children and the totals of its subtree."""

    run: dict[str, Any]
    children: list[RunNode] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    llm_runs: int = 0

    @property
    def name(self) -> str:
        return str(self.run.get("name") or "?")

    @property
    def latency(self) -> float:
        return float(self.run.get("latency_s") or 0.0)


@dataclass
class TraceView:
    run_id: str
    metas: list[dict[str, Any]]
    roots: list[RunNode]
    decisions: list[dict[str, Any]]
    source_calls: list[dict[str, Any]]
    progress: list[dict[str, Any]]
    usage: dict[str, Any]
    answer: dict[str, Any] | None
    records: dict[str, dict[str, Any]]
    queries: list[dict[str, Any]] = field(default_factory=list)

    def queries_of(self, node: RunNode) -> list[dict[str, Any]]:
        """The queries a node run sent (retrieve, verify_claims), matched by node and round: its child runs for
        "why this record"."""
        rnd = round_of(node)
        return [q for q in self.queries if q.get("node") == node.run.get("node") == node.name and q.get("round") == rnd]

    @property
    def meta(self) -> dict[str, Any]:
        return self.metas[0] if self.metas else {}

    @property
    def question(self) -> str:
        return next((m["question"] for m in self.metas if m.get("question")), "")

    @property
    def latency(self) -> float:
        return sum(root.latency for root in self.roots)

    def node_runs(self) -> list[RunNode]:
        """The graph's node runs (children of each root), in execution order."""
        return [child for root in self.roots for child in root.children]

    def totals(self) -> dict[str, Any]:
        """Run-level totals: from the answer's usage, LLM tokens and cost summed from the run tree."""
        total = dict(self.usage.get("total") or {})
        tree_tokens_in = sum(r.tokens_in for r in self.roots)
        tree_tokens_out = sum(r.tokens_out for r in self.roots)
        return {
            "latency_s": self.latency,
            "llm_calls": total.get("llm_calls", sum(r.llm_runs for r in self.roots)),
            "tokens_in": max(total.get("tokens_in", 0), tree_tokens_in),
            "tokens_out": max(total.get("tokens_out", 0), tree_tokens_out),
            "cost_usd": max(float(total.get("cost_usd") or 0.0), sum(r.cost_usd for r in self.roots)),
            "source_calls": total.get("source_calls", len(self.source_calls)),
            "calls_by_source": total.get("calls_by_source", {}),
            "cache_hits": total.get("cache_hits", 0),
        }


def build_view(run_id: str, records: list[dict[str, Any]]) -> TraceView:
    runs = [r for r in records if r.get("kind") == "run"]
    decisions = [r for r in records if r.get("kind") == "decision"]
    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for decision in decisions:
        by_run[str(decision.get("run"))].append(decision)
    children: dict[str | None, list[dict[str, Any]]] = defaultdict(list)
    for run in runs:
        children[run.get("parent_id")].append(run)
    for siblings in children.values():
        siblings.sort(key=lambda r: (str(r.get("start") or ""), str(r.get("dotted_order") or "")))

    def visible(run: dict[str, Any]) -> RunNode:
        node = RunNode(run=run, decisions=list(by_run.get(str(run["id"]), [])))
        if run.get("run_type") in ("llm", "chat_model"):
            node.llm_runs = 1
            node.tokens_in = int(run.get("tokens_in") or 0)
            node.tokens_out = int(run.get("tokens_out") or 0)
            node.cost_usd = float(run.get("cost_usd") or 0.0)
        for child in _visible_children(run, children):
            shown = visible(child)
            node.children.append(shown)
            node.llm_runs += shown.llm_runs
            node.tokens_in += shown.tokens_in
            node.tokens_out += shown.tokens_out
            node.cost_usd += shown.cost_usd
        return node

    roots = [visible(run) for run in children.get(None, [])]
    usage: dict[str, Any] = next((r for r in reversed(records) if r.get("kind") == "usage"), {})
    answer = next((r["answer"] for r in reversed(records) if r.get("kind") == "answer"), None)
    return TraceView(
        run_id=run_id,
        metas=[r for r in records if r.get("kind") == "meta"],
        roots=roots,
        decisions=decisions,
        source_calls=[r for r in records if r.get("kind") == "source_call"],
        progress=[r for r in records if r.get("kind") == "progress"],
        usage=usage,
        answer=answer,
        records={str(r["id"]): r for r in records if r.get("kind") == "record"},
        queries=[r for r in records if r.get("kind") == "query"],
    )


def _visible_children(run: dict[str, Any], children: dict[str | None, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Children to show: edge functions dropped, a same-named inner runnable replaced by its own children."""
    out: list[dict[str, Any]] = []
    for child in children.get(str(run["id"]), []):
        if child.get("name") in EDGE_FUNCTIONS:
            continue
        if child.get("name") == run.get("name") and child.get("run_type") == run.get("run_type"):
            out += _visible_children(child, children)
        else:
            out.append(child)
    return out


def load_view(ref: str) -> TraceView:
    """The view of a stored trace, by run id, unique prefix or `latest`."""
    from agent.tracing.store import load_trace, resolve_run_id

    run_id = resolve_run_id(ref)
    return build_view(run_id, load_trace(run_id))


def fmt_budget(left: dict[str, Any] | None) -> str:
    if not left:
        return ""
    parts = [
        f"llm {left.get('llm_calls')}",
        f"sources {left.get('source_calls')}",
        f"${float(left.get('cost_usd') or 0):.3f}",
    ]
    if left.get("wall_time_s") is not None:
        parts.append(f"{float(left['wall_time_s']):.0f} s")
    return ", ".join(parts)


def fmt_num(value: Any, pattern: str = "{:.3f}") -> str:
    return "-" if value is None else pattern.format(value)


def round_of(node: RunNode) -> int | None:
    """The research round a node run belongs to (from its output, else the state it received)."""
    for key in ("outputs", "inputs"):
        values = node.run.get(key) or {}
        if isinstance(values, dict) and isinstance(values.get("round"), int):
            return values["round"]
    return None


def start_offsets(view: TraceView) -> dict[str, float]:
    """Seconds from its root's start to each run's start (each segment of a resumed run has its own clock)."""
    offsets: dict[str, float] = {}

    def visit(node: RunNode, origin: datetime) -> None:
        if node.run.get("start"):
            offsets[str(node.run["id"])] = (datetime.fromisoformat(node.run["start"]) - origin).total_seconds()
        for child in node.children:
            visit(child, origin)

    for root in view.roots:
        if root.run.get("start"):
            visit(root, datetime.fromisoformat(root.run["start"]))
    return offsets
