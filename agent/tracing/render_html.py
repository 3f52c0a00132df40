"""`sparkit trace html`: one self-contained page to review a run, safe to open anywhere offline.

No external scripts, styles, fonts or images, and a Content-Security-Policy that forbids fetching anything,
so opening a trace never contacts a host. DOIs and URLs of live records are shown as text, not links. The
page holds: totals, the answer with citations linked to record sections on the page, per-node timing bars,
the collapsible run tree (`<details>`; two small inline buttons expand or collapse all of them, inputs and outputs
included), route decisions, hypotheses, the evidence ledger, the claims table, usage per node, source calls, and the
cited records, each with its whole abstract and the passages the run judged highlighted by stance.
"""

from __future__ import annotations

import hashlib
import json
import re
from html import escape
from typing import Any

from agent.tracing.answer_html import citation_items, claims_table, hypotheses_table, known_details, status_badges
from agent.tracing.answer_html import status_class as _status_class
from agent.tracing.answer_html import table as _table
from agent.tracing.html_assets import CSP, SCRIPT, STYLE
from agent.tracing.papers_html import papers_section
from agent.tracing.view import RunNode, TraceView, fmt_budget, fmt_num, fmt_seconds, round_of, start_offsets

_SAFE_ANCHOR = re.compile(r"^[A-Za-z0-9_-]+$")
_NONE = '<p class="muted">none</p>'


def anchor(record_id: str) -> str:
    """The page anchor of a record: its id when already safe, else a cleaned id plus a short hash."""
    if _SAFE_ANCHOR.match(record_id):
        return f"rec-{record_id}"
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "_", record_id)[:60]
    return f"rec-{cleaned}-{hashlib.sha1(record_id.encode()).hexdigest()[:8]}"


def _e(value: Any) -> str:
    return escape("" if value is None else str(value))


def _ref(record_id: Any, view: TraceView) -> str:
    """A citation: a link to the record's section when the page has it, else the bare id."""
    rid = str(record_id)
    if rid in view.records:
        return f'<a class="cite" href="#{anchor(rid)}">{_e(rid)}</a>'
    return f"<code>{_e(rid)}</code>"


def _doi(doi: Any) -> str:
    """A DOI as text (never a link: the page must not make the browser contact anything)."""
    return f" <code>doi:{_e(doi)}</code>" if doi else ""


def _json_block(label: str, value: Any, *, collapsed: bool = False) -> str:
    if value in (None, {}, []):
        return ""
    pre = f"<pre>{_e(json.dumps(value, indent=2, ensure_ascii=False, default=str))}</pre>"
    if collapsed:
        return f'<details class="io"><summary class="muted">{_e(label)}</summary>{pre}</details>'
    return f'<div class="muted">{_e(label)}</div>{pre}'


def _query_details(query: dict[str, Any], view: TraceView) -> str:
    """One query as a child run of the node that sent it: its hits with the scores that brought them in."""
    rows = [
        [
            _ref(str(h.get("id")), view) if str(h.get("id")) in view.records else f"<code>{_e(h.get('id'))}</code>",
            _e(h.get("title")),
            _e(h.get("source")),
            fmt_num(h.get("rank"), "{}"),
            fmt_num(h.get("bm25")),
            fmt_num(h.get("dense")),
            fmt_num(h.get("fused"), "{:.4f}"),
            fmt_num(h.get("rerank_rank"), "{}"),
            fmt_num(h.get("rerank")),
        ]
        for h in query.get("hits") or []
    ]
    table = (
        _table(
            ["record", "title", "source", "rank", "BM25", "dense", "fused", "rerank #", "rerank"],
            rows,
            {3, 4, 5, 6, 7, 8},
        )
        if rows
        else _NONE
    )
    return (
        '<details class="run query" data-run-type="query"><summary><b class="name">query</b> <span '
        f'class="badge">{_e(query.get("via"))}</span> '
        f'<q>{_e(query.get("query"))}</q> <span class="muted">{len(rows)} hits in the '
        f'pool</span></summary><div class="runbody">{table}</div></details>'
    )


def _run_details(node: RunNode, depth: int, view: TraceView | None = None) -> str:
    run = node.run
    attrs = f' id="run-{_e(run["id"])}" data-run-type="{_e(run.get("run_type"))}"'
    if run.get("node"):
        attrs += f' data-node="{_e(run["node"])}"'
    bits = [f'<b class="name">{_e(node.name)}</b>', f'<span class="badge">{_e(run.get("run_type"))}</span>']
    rnd = round_of(node) if depth == 1 else None
    if rnd is not None:
        bits.append(f'<span class="badge">round {rnd}</span>')
    bits.append(f'<span class="muted">{fmt_seconds(node.latency)}</span>')
    if node.llm_runs:
        bits.append(f'<span class="badge">{node.tokens_in}/{node.tokens_out} tok · ${node.cost_usd:.4f}</span>')
    if run.get("model"):
        bits.append(f"<code>{_e(run['model'])}</code>")
    if run.get("error"):
        bits.append('<span class="badge bad">error</span>')
    body = []
    for d in node.decisions:
        body.append(
            f'<div class="route">→ <b>{_e(d["next"])}</b>: {_e(d["reason"])} '
            f'<span class="muted">(margin {fmt_num(d.get("margin"))}, agreement '
            f"{fmt_num(d.get('agreement'), '{:.2f}')}, "
            f"contested {fmt_num(d.get('contested'), '{}')}; budget left "
            f"{_e(fmt_budget(d.get('budget_left')))})</span></div>"
        )
    if run.get("error"):
        body.append(f'<div class="muted">error</div><pre>{_e(run["error"])}</pre>')
    body.append(_json_block("inputs", run.get("inputs"), collapsed=True))
    body.append(_json_block("outputs", run.get("outputs"), collapsed=True))
    if view is not None and depth == 1:
        body += [_query_details(q, view) for q in view.queries_of(node)]
    body += [_run_details(child, depth + 1, view) for child in node.children]
    opened = " open" if depth == 0 else ""
    return (
        f'<details class="run"{attrs}{opened}><summary>{" ".join(bits)}</summary><div '
        f'class="runbody">{"".join(body)}</div></details>'
    )


def _timeline(view: TraceView) -> str:
    offsets = start_offsets(view)
    rows = []
    for root in view.roots:
        total = root.latency or 1e-9
        for node in root.children:
            left = min(100.0, offsets.get(str(node.run["id"]), 0.0) / total * 100)
            width = max(0.2, min(100.0 - left, node.latency / total * 100))
            rnd = round_of(node)
            label = node.name + (f" · r{rnd}" if rnd is not None else "")
            rows.append(
                f'<div class="row" data-node="{_e(node.run.get("node") or node.name)}"><span '
                f'class="label">{_e(label)}</span>'
                f'<span class="track"><span class="bar" style="left:{left:.2f}%;width:{width:.2f}%"></span></span>'
                f'<span class="ms">{fmt_seconds(node.latency)}</span></div>'
            )
    return f'<div class="timeline">{"".join(rows)}</div>' if rows else '<p class="muted">no node runs recorded</p>'


def _answer_section(view: TraceView) -> str:
    answer = view.answer or {}
    parts = [f"<p><b>{_e(answer.get('answer'))}</b></p>"] if answer.get("answer") else []
    sentences = answer.get("sentences") or []
    if sentences:
        items = "".join(
            f"<li>{_e(s.get('text'))} [{', '.join(_ref(c, view) for c in s.get('citations') or [])}]</li>"
            for s in sentences
            if isinstance(s, dict)
        )
        parts.append(f"<ol>{items}</ol>")
    if answer.get("stop_reason"):
        parts.append(f'<p class="muted">Stopped: {_e(answer["stop_reason"])}</p>')
    for note in (answer.get("notes") or [])[:20]:
        parts.append(f'<p class="muted">Note: {_e(note)}</p>')
    parts.append(citation_items(answer.get("citations") or [], lambda rid: _ref(rid, view), _doi))
    return "".join(parts) or '<p class="muted">no answer recorded (the run failed before its report)</p>'


def _hypotheses(view: TraceView) -> str:
    return hypotheses_table(view.answer or {})


def _ledger(view: TraceView) -> str:
    rows = [
        [
            _e(e.get("hypothesis_id")),
            _ref(e.get("record_id"), view),
            f'<span class="badge {_status_class(e.get("stance"))}">{_e(e.get("stance"))}</span>',
            fmt_num(e.get("confidence"), "{:.2f}"),
            fmt_num(e.get("weight"), "{:.2f}"),
            _e(e.get("via")),
            _e(e.get("text")),
        ]
        for e in (view.answer or {}).get("ledger") or []
    ]
    return (
        _table(["hyp.", "record", "stance", "conf.", "weight", "via", "passage"], rows, {3, 4})
        if rows
        else '<p class="muted">empty</p>'
    )


def _claims(view: TraceView) -> str:
    return claims_table(view.answer or {}, lambda rid: _ref(rid, view))


def _decisions(view: TraceView) -> str:
    rows = [
        [
            _e(d["at"]),
            _e(d["next"]),
            _e(d.get("round")),
            fmt_num(d.get("margin")),
            fmt_num(d.get("agreement"), "{:.2f}"),
            fmt_num(d.get("contested"), "{}"),
            _e(fmt_budget(d.get("budget_left"))),
            f'<a href="#run-{_e(d.get("run"))}">{_e(d["reason"])}</a>',
        ]
        for d in view.decisions
    ]
    headers = ["at", "next", "round", "margin", "agreement", "contested", "budget left", "reason"]
    return _table(headers, rows, {2, 3, 4, 5}) if rows else _NONE


def _usage(view: TraceView) -> str:
    rows = [
        [
            _e(node),
            _e(u.get("runs")),
            fmt_seconds(float(u.get("seconds") or 0)),
            _e(u.get("llm_calls")),
            f"{u.get('tokens_in', 0)}/{u.get('tokens_out', 0)}",
            f"${float(u.get('cost_usd') or 0):.4f}",
            _e(u.get("source_calls")),
            _e(", ".join(f"{k} {v}" for k, v in sorted((u.get("calls_by_source") or {}).items()))),
            _e(u.get("cache_hits")),
        ]
        for node, u in (view.usage.get("by_node") or {}).items()
    ]
    headers = ["node", "runs", "time", "LLM calls", "tokens in/out", "cost", "source calls", "by source", "cache hits"]
    return _table(headers, rows, {1, 2, 3, 4, 5, 6, 8}) if rows else _NONE


def _source_calls(view: TraceView) -> str:
    rows = [
        [
            _e(c.get("node") or "-"),
            _e(c.get("source")),
            _e(c.get("host")),
            f"<code>{_e(c.get('method'))} {_e(c.get('path'))}</code>",
            _e(c.get("status")),
            _e(c.get("attempts")),
            "hit" if c.get("cache_hit") else "-",
            fmt_seconds(float(c.get("elapsed_s") or 0)),
            _e(c.get("error") or ""),
        ]
        for c in view.source_calls
    ]
    if not rows:
        return '<p class="muted">no HTTP calls (an offline run, or sources that answer without HTTP)</p>'
    return _table(
        ["node", "source", "host", "request", "status", "attempts", "cache", "time", "error"], rows, {4, 5, 7}
    )


def highlighted(abstract: str, cited: list[dict[str, Any]]) -> str:
    """The whole abstract, escaped, with each passage the run judged wrapped in <mark> (titled with its stance)."""
    spans: list[tuple[int, int, dict[str, Any]]] = []
    for passage in cited:
        text = str(passage.get("text") or "")
        start = abstract.find(text) if text else -1
        if start >= 0 and not any(a < start + len(text) and start < b for a, b, _ in spans):
            spans.append((start, start + len(text), passage))
    out, at = [], 0
    for start, end, passage in sorted(spans, key=lambda s: s[0]):
        stance = str(passage.get("stance") or "").lower()
        out.append(_e(abstract[at:start]))
        out.append(
            f'<mark class="{_e(stance)}" title="{_e(passage.get("stance"))} '
            f'{fmt_num(passage.get("confidence"), "{:.2f}")}">'
            f"{_e(abstract[start:end])}</mark>"
        )
        at = end
    out.append(_e(abstract[at:]))
    missing = [p for p in cited if not any(p is q for _, _, q in spans)]
    notes = "".join(
        f'<li><mark class="{_e(str(p.get("stance") or "").lower())}">{_e(p.get("text"))}</mark> '
        f'<span class="muted">{_e(p.get("stance"))}</span></li>'
        for p in missing
    )
    return "".join(out) + (f'<ul class="muted">{notes}</ul>' if notes else "")


def _records(view: TraceView) -> str:
    out = []
    for rid, r in view.records.items():
        ids = []
        if r.get("doi"):
            ids.append(_doi(r["doi"]))
        if r.get("arxiv_id"):
            ids.append(f"<code>arXiv:{_e(r['arxiv_id'])}</code>")
        if r.get("pmid"):
            ids.append(f"<code>PMID:{_e(r['pmid'])}</code>")
        if r.get("url"):
            ids.append(f"<code>{_e(r['url'])}</code>")
        out.append(
            f'<article class="record" id="{anchor(rid)}"><div><code>{_e(rid)}</code> <b>{_e(r.get("title"))}</b> '
            f'<span class="muted">{_e(" · ".join(known_details(r)))}</span></div>'
            f'<div class="muted">{_e(", ".join(r.get("authors") or []))}</div><div class="ids">{"".join(ids)}</div>'
            f'<p class="abstract">{highlighted(str(r.get("abstract") or ""), r.get("cited") or [])}</p></article>'
        )
    return "".join(out) or '<p class="muted">no cited records</p>'


def render_html(view: TraceView) -> str:
    """The whole page as one string."""
    totals, answer, meta = view.totals(), view.answer or {}, view.meta
    status = answer.get("status") or "ERROR"
    by_source = ", ".join(f"{k} {v}" for k, v in sorted(totals["calls_by_source"].items())) or "-"
    summary = _table(
        ["latency", "LLM calls", "tokens in", "tokens out", "cost", "source calls", "by source", "cache hits"],
        [
            [
                fmt_seconds(totals["latency_s"]),
                _e(totals["llm_calls"]),
                _e(totals["tokens_in"]),
                _e(totals["tokens_out"]),
                f"${totals['cost_usd']:.4f}",
                _e(totals["source_calls"]),
                _e(by_source),
                _e(totals["cache_hits"]),
            ]
        ],
        {0, 1, 2, 3, 4, 5, 7},
    )
    errors = "".join(f'<p class="badge bad">{_e(m["error"])}</p>' for m in view.metas if m.get("error"))
    settings = meta.get("settings") or {}
    sections = [
        ("summary", "Totals", summary + errors),
        ("answer", "Answer", _answer_section(view)),
        ("papers", "Each paper at a glance", papers_section(answer, lambda rid: _ref(rid, view))),
        ("timeline", "Time per node", _timeline(view)),
        (
            "tree",
            "Run tree",
            '<p><button type="button" onclick="setAll(true)">expand all</button> '
            '<button type="button" onclick="setAll(false)">collapse all</button></p>'
            + "".join(_run_details(root, 0, view) for root in view.roots),
        ),
        ("decisions", "Route decisions", _decisions(view)),
        ("hypotheses", "Hypotheses", _hypotheses(view)),
        ("ledger", "Evidence ledger", _ledger(view)),
        ("claims", "Claims", _claims(view)),
        ("usage", "Usage per node", _usage(view)),
        ("sources", "Source calls", _source_calls(view)),
        ("records", "Cited records", _records(view)),
        ("settings", "Settings", _json_block("resolved context", settings)),
    ]
    nav = "".join(f'<a href="#{sid}">{_e(title)}</a>' for sid, title, _ in sections)
    body = "".join(f'<section id="{sid}"><h2>{_e(title)}</h2>{html}</section>' for sid, title, html in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>SPARKIT trace {_e(view.run_id)}</title><style>{STYLE}</style></head><body>"
        f"<header><h1>SPARKIT trace <code>{_e(view.run_id)}</code></h1>"
        f'<p class="q">{_e(view.question)}</p>'
        f'<p><span class="badge {_status_class(status)}">{_e(status)}</span>{status_badges(answer)}'
        f'<span class="badge">{_e(meta.get("mode") or "ask")}</span><span class="badge">started '
        f"{_e(str(meta.get('started_at') or '')[:19])}</span></p>"
        f"<nav>{nav}</nav></header>{body}<script>{SCRIPT}</script></body></html>\n"
    )
