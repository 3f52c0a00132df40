"""The trace page's parts that show the answer itself: its status badges, references, hypotheses and checked claims,
worded as the terminal words them (agent/answer/text.py), so that the page, too, reads without a key: a lean is
badged as a lean, a probability has no sign, a checked claim says why it has its verdict, and a reference shows no
"(n.d.) local"."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from agent.answer.text import LEAN_VERDICT, SCORE_HEADER, UNNAMED_SOURCES, claim_reason
from agent.records import Claim

LEAN_READINGS = {"SUPPORTED": "leans supported", "CONTRADICTED": "leans contradicted"}


def e(value: Any) -> str:
    return escape("" if value is None else str(value))


def status_class(value: Any) -> str:
    text = str(value or "")
    if text in ("ANSWERED", "SUPPORTED", "VERIFIED", "SUPPORT"):
        return "ok"
    if text in ("ERROR", "CONTRADICTED", "CONTRADICT", "CONTESTED"):
        return "bad"
    return "warn"


def table(headers: list[str], rows: list[list[str]], numeric: set[int] | None = None) -> str:
    numeric = numeric or set()
    head = "".join(f"<th{' class=num' if i in numeric else ''}>{e(h)}</th>" for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f"<td{' class=num' if i in numeric else ''}>{c}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def leaning(answer: dict[str, Any]) -> bool:
    return answer.get("tier") == "leaning"


def status_badges(answer: dict[str, Any]) -> str:
    """The header's verdict and confidence badges: under LEANING 'leans SUPPORT' and 'probability that the lean is
    right 0.62'; an abstention's confidence named as what it is."""
    verdict = answer.get("verdict")
    shown = LEAN_VERDICT.get(verdict, verdict) if leaning(answer) and verdict else verdict
    badges = f'<span class="badge {status_class(verdict)}">{e(shown)}</span>' if verdict else ""
    confidence = answer.get("confidence")
    if confidence is None:
        return badges
    label = "confidence"
    if leaning(answer):
        label = "probability that the lean is right"
    elif answer.get("status") == "INSUFFICIENT_EVIDENCE":
        label = "confidence that the evidence is insufficient"
    return badges + f'<span class="badge">{e(label)} {confidence:.2f}</span>'


def known_details(record: dict[str, Any]) -> list[str]:
    """A record's year, venue and source where they are known (no "n.d.", and not the offline corpus's "local")."""
    details = [str(record["year"])] if record.get("year") else []
    details += [str(record["venue"])] if record.get("venue") else []
    if (record.get("source") or "") not in UNNAMED_SOURCES:
        details.append(str(record["source"]))
    return details


def citation_items(citations: list[dict[str, Any]], ref: Callable[[Any], str], doi: Callable[[Any], str]) -> str:
    """The references, each with its year and source where they are known (the offline corpus is not named)."""
    items = []
    for c in citations:
        details = known_details({"year": c.get("year"), "source": c.get("source")})
        shown = f' <span class="muted">({e(", ".join(details))})</span>' if details else ""
        items.append(f"<li>{ref(c.get('id'))} {e(c.get('title'))}{shown}{doi(c.get('doi'))}</li>")
    return f"<h3>References</h3><ul>{''.join(items)}</ul>" if items else ""


def hypotheses_table(answer: dict[str, Any]) -> str:
    """The hypotheses weighed: each score as what it is (`Answer.scores`), the court's reading as a lean under
    LEANING."""
    kind = answer.get("scores") or "evidence"
    pattern = "{:+.2f}" if kind == "evidence" else "{:.2f}"
    rows = []
    for h in sorted(answer.get("hypotheses") or [], key=lambda h: -(h.get("score") or 0)):
        verdict = h.get("verdict")
        shown = LEAN_READINGS.get(verdict, verdict) if leaning(answer) else verdict
        score = h.get("score")
        rows.append(
            [
                e(h.get("id")),
                e(h.get("text")),
                e(h.get("origin")),
                "-" if h.get("support") is None else f"{h['support']:.2f}",
                "-" if h.get("contradiction") is None else f"{h['contradiction']:.2f}",
                "-" if score is None else pattern.format(score),
                f'<span class="badge {status_class(verdict)}">{e(shown)}</span>',
            ]
        )
    if not rows:
        return '<p class="muted">none</p>'
    head = ["id", "hypothesis", "origin", "evidence for", "evidence against", "score", "the court's reading"]
    return f'<p class="muted">score: {e(SCORE_HEADER[kind])}</p>' + table(head, rows, {3, 4, 5})


def claims_table(answer: dict[str, Any], ref: Callable[[Any], str]) -> str:
    """Each checked claim with its verdict, the records on each side and why it has its verdict, in words."""
    rows = []
    for c in answer.get("claims") or []:
        claim = Claim.model_validate(c)
        rows.append(
            [
                f'<span class="badge {status_class(claim.verdict.value)}">{e(claim.verdict.value)}</span>',
                e(claim.text),
                ", ".join(ref(r) for r in claim.supporting) or "-",
                ", ".join(ref(r) for r in claim.refuting) or "-",
                e(claim_reason(claim)),
            ]
        )
    if not rows:
        return '<p class="muted">no claims checked</p>'
    return table(["verdict", "quoted sentence", "supporting", "refuting", "why"], rows)
