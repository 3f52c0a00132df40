"""`sparkit trace list` and `sparkit trace show`: plain-text tables and a run tree with timings and cost."""

from __future__ import annotations

from typing import Any

from agent.answer.papers_text import head_line
from agent.records import PaperFinding
from agent.tracing.view import RunNode, TraceView, fmt_budget, fmt_num, fmt_seconds, round_of, start_offsets

BAR_WIDTH = 24


def render_list(entries: list[dict[str, Any]]) -> str:
    """One line per trace, newest first."""
    if not entries:
        return "no traces yet (run `sparkit ask ...`; traces are written by default)"
    lines = [
        f"{'RUN ID':<14} {'STARTED':<19} {'STATUS':<22} {'CONF':>5} {'COST':>9} {'TIME':>8} {'SET-UP':>8}  QUESTION"
    ]
    for (
        e
    ) in entries:  # TIME is the run's own (Usage.wall_time_s); SET-UP what it waited for first (models, an index build)
        status = str(e.get("status") or "?") + (f" {e['verdict']}" if e.get("verdict") else "")
        setup = float(e.get("setup_s") or 0)
        lines.append(
            f"{e.get('run_id')!s:<14} {str(e.get('started_at') or '')[:19].replace('T', ' '):<19} {status[:22]:<22} "
            f"{fmt_num(e.get('confidence'), '{:.2f}'):>5} {fmt_num(e.get('cost_usd'), '${:.4f}'):>9} "
            f"{fmt_seconds(float(e.get('latency_s') or 0)):>8} "
            f"{fmt_seconds(setup) if setup >= 0.1 else '-':>8}  {str(e.get('question') or '')[:70]}"
        )
    return "\n".join(lines)


def _bar(node: RunNode, total: float, start_of: dict[str, float]) -> str:
    """Where the run sits in the whole run's time, as a fixed-width bar."""
    if total <= 0:
        return ""
    offset = start_of.get(str(node.run["id"]), 0.0)
    begin = min(BAR_WIDTH - 1, int(offset / total * BAR_WIDTH))
    width = max(1, round(node.latency / total * BAR_WIDTH))
    return "|" + (" " * begin + "█" * width).ljust(BAR_WIDTH)[:BAR_WIDTH] + "|"


def _tree_lines(
    node: RunNode, prefix: str, last: bool, depth: int, total: float, start_of: dict[str, float], out: list[str]
) -> None:
    branch = "" if depth == 0 else ("└── " if last else "├── ")
    label = node.name
    if node.run.get("run_type") != "chain":
        label += f" [{node.run.get('run_type')}]"
    rnd = round_of(node) if depth == 1 else None
    if rnd is not None:
        label += f" r{rnd}"
    extra = []
    if node.llm_runs:
        extra.append(f"{node.tokens_in}/{node.tokens_out} tok ${node.cost_usd:.4f}")
    if node.run.get("model"):
        extra.append(str(node.run["model"]))
    if node.run.get("error"):
        extra.append("ERROR " + str(node.run["error"]).splitlines()[0][:80])
    text = f"{prefix}{branch}{label}"
    out.append(
        f"{text:<44.44} {fmt_seconds(node.latency):>8} {_bar(node, total, start_of)} {'  '.join(extra)}".rstrip()
    )
    child_prefix = prefix + ("" if depth == 0 else ("    " if last else "│   "))
    for decision in node.decisions:
        out.append(f"{child_prefix}  → {decision['next']}: {decision['reason']}")
    for i, child in enumerate(node.children):
        _tree_lines(child, child_prefix, i == len(node.children) - 1, depth + 1, total, start_of, out)


def marked(abstract: str, cited: list[dict[str, Any]]) -> str:
    """The whole abstract with each judged passage in [[...]] and its stance after it."""
    for passage in cited:
        text = str(passage.get("text") or "")
        if text and text in abstract:
            abstract = abstract.replace(text, f"[[{text}]]({str(passage.get('stance') or '').lower()})", 1)
    return abstract


def render_show(view: TraceView) -> str:
    """The run tree with timings, LLM tokens/cost, route decisions, usage per node and source calls."""
    meta, totals = view.meta, view.totals()
    answer = view.answer or {}
    status = answer.get("status", "?") + (f" {answer['verdict']}" if answer.get("verdict") else "")
    lines = [
        f"Trace {view.run_id}   {meta.get('mode') or 'ask'}   {status}   confidence "
        f"{fmt_num(answer.get('confidence'), '{:.2f}')}",
        f"Question: {view.question}",
    ]
    if answer.get("answer"):
        lines.append(f"Answer: {str(answer['answer'])[:300]}")
    if answer.get("papers"):
        lines.append(head_line([PaperFinding.model_validate(p) for p in answer["papers"]]))
    by_source = ", ".join(f"{k} {v}" for k, v in sorted(totals["calls_by_source"].items()))
    lines.append(
        f"Total: {fmt_seconds(totals['latency_s'])}, {totals['llm_calls']} LLM calls, "
        f"{totals['tokens_in']}/{totals['tokens_out']} tokens, "
        f"${totals['cost_usd']:.4f}, {totals['source_calls']} source "
        f"calls{f' ({by_source})' if by_source else ''}, {totals['cache_hits']} cache hits"
    )
    for m in view.metas:
        if m.get("error"):
            lines.append(f"Error: {m['error']}")
    lines += ["", "Run tree:"]
    offsets = start_offsets(view)
    for root in view.roots:
        _tree_lines(root, "", True, 0, root.latency, offsets, lines)
    if view.decisions:
        lines += [
            "",
            "Route decisions:",
            f"  {'AT':<14} {'NEXT':<14} {'RND':>3} {'MARGIN':>7} {'AGREE':>6} {'CONTEST':>7}  BUDGET LEFT / REASON",
        ]
        for d in view.decisions:
            lines.append(
                f"  {d['at']:<14} {d['next']:<14} {d.get('round', 0):>3} {fmt_num(d.get('margin')):>7} "
                f"{fmt_num(d.get('agreement'), '{:.2f}'):>6} "
                f"{fmt_num(d.get('contested'), '{}'):>7}  [{fmt_budget(d.get('budget_left'))}] {d['reason']}"
            )
    by_node = view.usage.get("by_node") or {}
    if by_node:
        lines += ["", "Usage by node:", render_by_node(by_node)]
    if view.queries:
        lines += [
            "",
            "Queries and the records they brought in (rank, BM25, dense, fused; rerank rank and score in the "
            "last ranking):",
        ]
        for q in view.queries:
            lines.append(f"  r{q.get('round')} {q.get('node')} [{q.get('via')}] {q.get('query')}")
            for h in (q.get("hits") or [])[:10]:
                lines.append(
                    f"      {str(h.get('id'))[:24]:<24} #{fmt_num(h.get('rank'), '{}'):>3} bm25 "
                    f"{fmt_num(h.get('bm25'), '{:.2f}'):>6} "
                    f"dense {fmt_num(h.get('dense')):>6} fused {fmt_num(h.get('fused'), '{:.4f}'):>7} "
                    f"rerank #{fmt_num(h.get('rerank_rank'), '{}')} {fmt_num(h.get('rerank'))}  "
                    f"{str(h.get('title') or '')[:60]}"
                )
    if view.records:
        lines += ["", "Cited records (passages the run judged in [[...]]):"]
        for rid, record in view.records.items():
            year = f" ({record['year']})" if record.get("year") else ""
            lines.append(f"  [{rid}] {record.get('title') or ''}{year}")
            lines.append(f"      {marked(str(record.get('abstract') or ''), record.get('cited') or [])}")
    if view.source_calls:
        lines += [
            "",
            "Source calls:",
            f"  {'NODE':<14} {'SOURCE':<17} {'HOST':<28} {'STATUS':>6} {'TRIES':>5} {'CACHE':>5} {'TIME':>8}  ERROR",
        ]
        for c in view.source_calls:
            lines.append(
                f"  {c.get('node') or '-'!s:<14} {c.get('source')!s:<17} {str(c.get('host'))[:28]:<28} "
                f"{fmt_num(c.get('status'), '{}'):>6} "
                f"{c.get('attempts', 0):>5} {'hit' if c.get('cache_hit') else '-':>5} "
                f"{fmt_seconds(float(c.get('elapsed_s') or 0)):>8}  {c.get('error') or ''}"
            )
    return "\n".join(lines)


def render_by_node(by_node: dict[str, dict[str, Any]]) -> str:
    """Per-node usage table (also printed at the end of `sparkit ask`)."""
    lines = [
        f"  {'NODE':<14} {'RUNS':>4} {'TIME':>8} {'LLM':>4} {'TOKENS IN/OUT':>15} {'COST':>9} {'SOURCES':>7}  BY SOURCE"
    ]
    for node, u in by_node.items():
        sources = ", ".join(f"{k} {v}" for k, v in sorted((u.get("calls_by_source") or {}).items()))
        lines.append(
            f"  {node:<14} {u.get('runs', 0):>4} {fmt_seconds(float(u.get('seconds') or 0)):>8} "
            f"{u.get('llm_calls', 0):>4} "
            f"{str(u.get('tokens_in', 0)) + '/' + str(u.get('tokens_out', 0)):>15} "
            f"{'$' + format(float(u.get('cost_usd') or 0), '.4f'):>9} "
            f"{u.get('source_calls', 0):>7}  {sources}".rstrip()
        )
    return "\n".join(lines)
