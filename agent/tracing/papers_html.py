"""The trace page's "Each paper at a glance" section: an SVG meter of the papers' answers and a table of every
paper the court read (answer, design, sample size, each with the sentence it came from). Inline SVG, no script, no
external anything (the page's Content-Security-Policy allows none)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import Any

from agent.answer.papers import ANSWER_LABEL, METER_MIN_PAPERS, meter_counts, meter_drawn, meter_text
from agent.records import PaperAnswer, PaperFinding

METER_COLOUR: dict[PaperAnswer, str] = {
    "supports": "#3f9b5a",
    "mixed": "#d9a227",
    "contradicts": "#c94c4c",
    "silent": "#b8c0ca",
}
BADGE: dict[PaperAnswer, str] = {"supports": "ok", "mixed": "warn", "contradicts": "bad", "silent": ""}
"""The page's badge colours (agent/tracing/html_assets.py) for each answer."""
WIDTH, HEIGHT = 480, 18


def _e(value: Any) -> str:
    return escape("" if value is None else str(value))


def meter_svg(papers: Sequence[PaperFinding]) -> str:
    """A stacked bar, one segment per answer in proportion to its papers, each with a <title> (its label and count)
    and the counts written beside it."""
    counts = meter_counts(papers)
    total = sum(counts.values()) or 1
    x, parts = 0.0, []
    for answer, n in counts.items():
        if not n:
            continue
        w = WIDTH * n / total
        parts.append(
            f'<rect class="meter-{answer}" x="{x:.1f}" y="0" width="{w:.1f}" height="{HEIGHT}" '
            f'fill="{METER_COLOUR[answer]}"><title>{_e(ANSWER_LABEL[answer])}: {n}</title></rect>'
        )
        x += w
    label = _e(meter_text(papers))
    return (
        f'<svg class="meter" role="img" aria-label="{label}" width="{WIDTH}" height="{HEIGHT + 18}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT + 18}" xmlns="http://www.w3.org/2000/svg">{"".join(parts)}'
        f'<text x="0" y="{HEIGHT + 14}" font-size="12">{label}</text></svg>'
    )


def _quote(text: str | None) -> str:
    return f'<div class="muted">“{_e(text)}”</div>' if text else ""


def papers_section(answer: dict[str, Any], ref: Callable[[str], str]) -> str:
    """The section's HTML from an answer's JSON (`papers`); `ref` links a record id to its place on the page."""
    papers = [PaperFinding.model_validate(p) for p in answer.get("papers") or []]
    if not papers:
        return '<p class="muted">the court read no paper</p>'
    head = (
        meter_svg(papers)
        if meter_drawn(papers)
        else f'<p class="muted">{_e(meter_text(papers))} (the meter is drawn from {METER_MIN_PAPERS} papers read)</p>'
    )
    rows = "".join(
        "<tr>"
        f'<td><span class="badge {BADGE[p.answer]} paper-{p.answer}">{_e(ANSWER_LABEL[p.answer])}</span>'
        f"{_quote(p.answer_sentence)}</td>"
        f"<td>{_e(p.design)}{_quote(p.design_sentence)}</td>"
        f'<td class="num">{"-" if p.sample_size is None else f"{p.sample_size:,}"}{_quote(p.size_sentence)}</td>'
        f"<td>{ref(p.record_id)}</td><td>{_e(p.title)}{f' ({p.year})' if p.year else ''}</td>"
        "</tr>"
        for p in papers
    )
    table = (
        "<table><thead><tr><th>answer</th><th>design</th><th class=num>sample size</th><th>record</th>"
        f"<th>title</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    return f"<p>{len(papers)} papers read by the court.</p>{head}{table}"
