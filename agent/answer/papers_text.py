"""Each paper at a glance, as the terminal prints it (`sparkit ask`, `sparkit trace show`): the meter line and one
row per paper, its deciding passage quoted under it.

    Papers the court read (7): supports 3 · mixed 1 · contradicts 1 · related but silent 2
      [██████████▒▒▒▒░░░░······]  █ supports  ▒ mixed  ░ contradicts  · related but silent
      answer              design                 sample size  record     title
      supports            RCT                          4,632  12209494   Multiple-dose activated charcoal in acute ...
                          "Mortality did not differ between the groups."

The legend under the meter names each cell, and every column has a header: a reader needs no key. "related but
silent" is a paper the court read and kept no reading of that takes a side (agent/answer/papers.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.answer.papers import ANSWER_LABEL, METER_MIN_PAPERS, meter_counts, meter_drawn, meter_text
from agent.common.text import truncate
from agent.records import PaperAnswer, PaperFinding

METER_WIDTH = 24
METER_CELL: dict[PaperAnswer, str] = {"supports": "█", "mixed": "▒", "contradicts": "░", "silent": "·"}


def meter_bar(papers: Sequence[PaperFinding], width: int = METER_WIDTH) -> str:
    """The answers as one bar of `width` cells, each answer's share of the papers in its own character (the cells
    rounded so that they add up to `width`)."""
    counts = meter_counts(papers)
    total = sum(counts.values()) or 1
    cells, used = [], 0
    for i, (answer, n) in enumerate(counts.items()):
        share = width - used if i == len(counts) - 1 else round(width * n / total)
        cells.append(METER_CELL[answer] * share)
        used += share
    return "[" + "".join(cells) + "]"


def meter_legend() -> str:
    """'█ supports  ▒ mixed  ░ contradicts  · related but silent': what each of the bar's cells stands for."""
    return "  ".join(f"{METER_CELL[answer]} {ANSWER_LABEL[answer]}" for answer in METER_CELL)


def head_line(papers: Sequence[PaperFinding]) -> str:
    """'Papers the court read (7): supports 3 · ...' (`sparkit trace show` prints this line alone)."""
    return f"Papers the court read ({len(papers)}): {meter_text(papers)}"


def paper_lines(papers: Sequence[PaperFinding]) -> list[str]:
    """The terminal's lines for the papers the court read (none when it read none)."""
    if not papers:
        return []
    lines = [head_line(papers)]
    if meter_drawn(papers):
        lines.append(f"  {meter_bar(papers)}  {meter_legend()}")
    else:
        lines.append(f"  (no meter: it is drawn from {METER_MIN_PAPERS} papers read)")
    lines.append(f"  {'answer':<19} {'design':<21} {'sample size':>11}  {'record':<10} title")
    for paper in papers:
        size = f"{paper.sample_size:,}" if paper.sample_size is not None else "-"
        lines.append(
            f"  {ANSWER_LABEL[paper.answer]:<19} {paper.design:<21} {size:>11}  {paper.record_id:<10} "
            f"{truncate(paper.title or '', 70)}"
        )
        if paper.answer != "silent" and paper.answer_sentence:
            lines.append(f'  {"":<19} "{truncate(paper.answer_sentence, 110)}"')
    return lines
