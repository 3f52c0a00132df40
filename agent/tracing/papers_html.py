"""The trace page's "Each paper at a glance" section: an SVG meter of the papers' answers with a legend, and a table
of every paper the court read laid out as the terminal's (agent/answer/papers_text.py): answer, design, sample size,
record and title on one line, the sentence that decided the answer under it across the whole row. A paragraph in a
narrow column made a row a screen high and pushed the title off to the right; the design's and the size's sentences
are the cells' tooltips. Under 640 px the first line wraps as a block instead of scrolling sideways. Inline SVG, no
script, no external anything (the page's Content-Security-Policy allows none)."""

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
        f'<svg class="meter" role="img" aria-label="{label}" width="100%" height="{HEIGHT + 18}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT + 18}" xmlns="http://www.w3.org/2000/svg">{"".join(parts)}'
        f'<text x="0" y="{HEIGHT + 14}" font-size="12">{label}</text></svg>'
    )


def legend() -> str:
    """What each colour of the meter stands for, and what "related but silent" means."""
    swatches = "".join(
        f'<span class="swatch" style="background:{METER_COLOUR[answer]}"></span>{_e(ANSWER_LABEL[answer])} '
        for answer in METER_COLOUR
    )
    return (
        f'<p class="legend muted">{swatches}— a related but silent paper was read by the court, and none of its '
        "readings takes a side</p>"
    )


def _tip(text: str | None) -> str:
    return f' title="{_e(text)}"' if text else ""


def paper_rows(paper: PaperFinding, ref: Callable[[str], str]) -> str:
    """The paper's line (answer, design, sample size, record, title) and, when it takes a side, the sentence that
    decided it on a line of its own across the row."""
    size = "-" if paper.sample_size is None else f"{paper.sample_size:,}"
    line = (
        f'<tr class="paper"><td class="answer"><span class="badge {BADGE[paper.answer]} paper-{paper.answer}">'
        f"{_e(ANSWER_LABEL[paper.answer])}</span></td>"
        f'<td class="design"{_tip(paper.design_sentence)}>{_e(paper.design)}</td>'
        f'<td class="num"{_tip(paper.size_sentence)}>{size}</td>'
        f'<td class="record">{ref(paper.record_id)}</td>'
        f'<td class="title">{_e(paper.title)}{f" ({paper.year})" if paper.year else ""}</td></tr>'
    )
    if paper.answer == "silent" or not paper.answer_sentence:
        return line
    return line + f'<tr class="quote"><td colspan="5">“{_e(paper.answer_sentence)}”</td></tr>'


def papers_section(answer: dict[str, Any], ref: Callable[[str], str]) -> str:
    """The section's HTML from an answer's JSON (`papers`); `ref` links a record id to its place on the page."""
    papers = [PaperFinding.model_validate(p) for p in answer.get("papers") or []]
    if not papers:
        return '<p class="muted">the court read no paper</p>'
    head = (
        meter_svg(papers) + legend()
        if meter_drawn(papers)
        else f'<p class="muted">{_e(meter_text(papers))} (the meter is drawn from {METER_MIN_PAPERS} papers read)</p>'
    )
    table = (
        '<table class="papers"><thead><tr><th>answer</th><th>design</th><th class=num>sample size</th><th>record</th>'
        f"<th>title</th></tr></thead><tbody>{''.join(paper_rows(p, ref) for p in papers)}</tbody></table>"
    )
    return f"<p>{len(papers)} papers read by the court.</p>{head}{table}"
