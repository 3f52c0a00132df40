"""The answer line in its three forms, and the sentences the status ladder adds to it.

A confident answer's verb is graded by its confidence (`graded`: "indicates", "suggests", "weakly suggests"); a lean
states its side and the probability that the lean is right (`lean_line`); an abstention says why, in words a reader
can check, and which way what evidence there is leans (`abstention_line`, `lean_sentence`). The quotes under the line
and their roles are agent/answer/compose.py's.
"""

from __future__ import annotations

from agent.answer.compose import firmly_for, option_label, prevailing, reported, role_of, sentence_case
from agent.common.text import is_finding
from agent.interfaces import Draft
from agent.literature import Record
from agent.records import Hypothesis, LedgerEntry

# The answer line's verb, graded by the calibrated confidence: a verdict right 6 times in 10 is a suggestion, not a
# finding (on the SciFact validation claims, 59 of 60 answers had confidence below 0.6 and 61 % of them were right).
# verdict_sentence writes the strongest form; with_confidence grades it once the confidence is known.
GRADES = (0.75, 0.6)
EVIDENCE_VERBS = {
    "indicates": ("indicates", "suggests", "weakly suggests"),
    "supports": ("supports", "tends to support", "weakly supports"),
    "contradicts": ("contradicts", "tends to contradict", "weakly contradicts"),
}
LEAN_CITATIONS = 3


def graded(sentence: str, confidence: float, firm: bool = True) -> str:
    """The answer line with its evidence verb as strong as the confidence allows ('the evidence indicates' at 0.75 or
    more, 'suggests' from 0.6, 'weakly suggests' below, and below whatever the confidence when no quoted passage
    firmly supports the answer, `firm` False: three passages that only qualify do not 'suggest'); a sentence without
    one (an MCQ option, a chat model's own wording) is left as it is."""
    grade = sum(confidence < bound for bound in GRADES) if firm else len(GRADES)
    for verb, forms in EVIDENCE_VERBS.items():
        phrase = f"evidence {verb} "
        if phrase in sentence:
            return sentence.replace(phrase, f"evidence {forms[grade]} ", 1)
    return sentence


def with_citations(sentence: str, record_ids: list[str]) -> str:
    """'... defects [33740844].': the answer line cites the records it quotes (an open question's finding is a
    sentence of a record), as the evidence statements do."""
    if not record_ids:
        return sentence
    return f"{sentence.rstrip().rstrip('.')} [{', '.join(record_ids)}]."


def with_confidence(sentence: str, confidence: float, firm: bool = True) -> str:
    """'... (confidence 0.62).' on the answer sentence, its verb graded by that confidence (and `firm`, see graded)."""
    return f"{graded(sentence, confidence, firm).rstrip().rstrip('.')} (confidence {confidence:.2f})."


def answer_line(draft: Draft, confidence: float) -> str:
    """The answered run's line: the draft's sentence citing the records it quotes, its verb graded by the confidence
    and by whether any quoted passage firmly supports it (a draft whose sentences carry no roles, a chat model's,
    counts as firm)."""
    roles = [s.role for s in draft.sentences if s.role]
    firm = bool(draft.answer_citations) or any(firmly_for(s) for s in draft.sentences) or not roles
    return with_confidence(with_citations(draft.answer, draft.answer_citations), confidence, firm)


def mixed_sentence(best: Hypothesis | None, ledger: list[LedgerEntry], enough: float) -> str:
    """' The evidence is mixed: ...' when the weighted evidence against a claim's answer would on its own be enough
    for a verdict (`verdict_min_evidence`): of SciFact answers (all held-out and validation claims, 1dd97b8) such
    answers were right 11 times in 22, the others 111 in 169. Records are counted by their prevailing readings: seen
    as "the one record that takes a side reads both ways" under three supporting quotes, one of them the very
    sentence read against the claim on its own."""
    if best is None or best.origin not in ("claim", "negation") or best.contradiction < enough:
        return ""
    sides = prevailing([e for e in ledger if e.hypothesis_id == best.id and e.stance != "NEUTRAL"])
    backing, against = (
        {e.record_id for e in sides if e.stance == "SUPPORT"},
        {e.record_id for e in sides if e.stance == "CONTRADICT"},
    )
    judged, both = backing | against, backing & against
    if not against:  # what was read against it is read for it more strongly where it was read
        return ""
    if not both:
        return f" The evidence is mixed: {len(against)} of the {len(judged)} records that take a side read against it."
    if len(judged) == 1:  # not "1 of the 1 records ... read against it": its passages read both ways
        return " The evidence is mixed: the one record that takes a side reads both ways."
    only_against = len(against - backing)
    parts = ([f"{only_against} read{'s' if only_against == 1 else ''} against it"] if only_against else []) + [
        f"{len(both)} read{'s' if len(both) == 1 else ''} both ways"
    ]
    return f" The evidence is mixed: of the {len(judged)} records that take a side, {' and '.join(parts)}."


def records_rested_on(draft: Draft, records: dict[str, Record]) -> list[Record]:
    """The records an answer cites, in its line first and then in its statements, once each."""
    rests_on = dict.fromkeys(draft.answer_citations + [c for s in draft.sentences for c in s.citations])
    return [records[rid] for rid in rests_on if rid in records]


def unnamed_sentence(missing: list[str]) -> str:
    """' The records it rests on do not mention psoriasis.' for the terms `unnamed` found."""
    return f" The records it rests on do not mention {listed(missing)}." if missing else ""


def listed(terms: list[str]) -> str:
    """'a', 'a or b', 'a, b or c'."""
    return f"{', '.join(terms[:-1]) + ' or ' if len(terms) > 1 else ''}{terms[-1]}"


def abstention_line(best: Hypothesis | None, task: str, ledger: list[LedgerEntry], reason: str) -> str:
    """The abstaining run's line: why it does not decide, in words a reader can check, then which way what evidence
    there is leans ('Insufficient evidence to decide: the one record that takes a side weighs too little for a
    verdict. What evidence there is leans towards the claim [19278208].')."""
    return f"Insufficient evidence to decide: {reason}.{lean_sentence(best, task, ledger)}"


def lean_sentence(best: Hypothesis | None, task: str, ledger: list[LedgerEntry]) -> str:
    """' What evidence there is leans towards the claim [ids].' for a run that gives no verdict (abstained, or cut by
    the budget): the side and the records it rests on, never the draft's verdict sentence nested inside ("leans
    towards: The evidence supports the claim: ..."); empty unless some passage firmly supports the leading answer
    (role "supports"): a passage that only qualifies it is shown as such, and is no lean."""
    if best is None:
        return ""
    firm = [
        e.record_id
        for e in ledger
        if e.hypothesis_id == best.id and role_of(e, best.text) == "supports" and is_finding(e.text)
    ]
    if not firm:
        return ""
    leaning = list(dict.fromkeys(firm))
    return f" What evidence there is leans {_lean_side(best, task)} [{', '.join(leaning[:LEAN_CITATIONS])}]."


def lean_line(best: Hypothesis, task: str, draft: Draft, ledger: list[LedgerEntry], confidence: float) -> str:
    """The leaning run's line: the side the evidence leads to, the probability that it is right, what it says and the
    records it rests on ('The evidence leans towards yes (0.71): hypoglycemia increases the risk of dementia
    [13282296].'). A lean is an answer under the operating point: it is stated, with how far to trust it, rather
    than hidden behind "insufficient evidence"; its records are the draft's, else those read supporting it."""
    statement = best.text.strip().rstrip(".")
    lowered = sentence_case(statement)
    if best.origin in ("claim", "negation") and task == "polar":
        head, said = f"towards {'yes' if best.polarity > 0 else 'no'}", lowered
    elif best.origin in ("claim", "negation"):
        claim = statement if best.polarity > 0 else best.statement.strip().rstrip(".")
        head, said = ("towards" if best.polarity > 0 else "against") + " the claim", claim
    elif best.option_index is not None:
        head, said = f"towards ({option_label(best.option_index)})", statement
    else:
        head, said = "towards this finding", reported(statement)
    supporting = sorted(
        (e for e in ledger if e.hypothesis_id == best.id and e.stance == "SUPPORT"), key=lambda e: -e.confidence
    )
    cited = list(dict.fromkeys(draft.answer_citations or [e.record_id for e in supporting]))[:LEAN_CITATIONS]
    return with_citations(f"The evidence leans {head} ({confidence:.2f}): {said}.", cited)


def _lean_side(best: Hypothesis, task: str) -> str:
    statement = best.text.strip().rstrip(".")
    if best.origin in ("claim", "negation") and task == "polar":
        lowered = sentence_case(statement)
        return f"towards {'yes' if best.polarity > 0 else 'no'} (that {lowered})"
    if best.origin in ("claim", "negation"):
        return "towards the claim" if best.polarity > 0 else "against the claim"
    if best.option_index is not None:
        return f"towards ({option_label(best.option_index)}) {statement}"
    return f"towards: {statement}"
