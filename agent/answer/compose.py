"""The answer a person would write: one plain sentence with the verdict, then 2-4 distinct evidence statements.

Each evidence statement quotes one judged passage with its record and its role, read from the stance judge's ledger
for the winning hypothesis (`role_of`: supports / qualifies / contradicts that hypothesis) and stated towards what
the reader sees (`reader_role`, ROLES): for a claim or a yes / no question towards the claim as the user wrote it,
whichever of it and its negation won ("Supports the claim" / "Against the claim"); for an MCQ towards the selected
option ("For (A)" / "Against (A)"); for an open question towards the answer line ("Supports the answer" / "Against
the answer"). A reading below STRONG, or one that only qualifies (a passage that says its point needs further
investigation, or one whose statistics are all non-significant for an answer that claims an effect), takes no side:
"Related evidence". A statement is
never repeated or nested: a sentence inside a window already quoted (or a window around a quoted sentence) is
counted once, as the stronger reading, and a passage that merely restates the answer is not quoted.
"""

from __future__ import annotations

import itertools
import re
from typing import Literal

from agent.common.text import (
    is_finding,
    is_tentative,
    jaccard,
    opens_on_reference,
    split_sentences,
    strip_section_label,
    truncate,
)
from agent.interfaces import CitedSentence
from agent.literature import Record
from agent.records import Hypothesis, LedgerEntry
from agent.scoring.significance import claims_an_effect, only_non_significant

STRONG = 0.6  # a quote's reading takes a side (its role) at this confidence or above; below, it is "Related evidence"
# CitedSentence.role (also AnswerSentence.role in the JSON answer) -> the label the quote is printed under
ROLES = {
    "supports_claim": "Supports the claim",
    "against_claim": "Against the claim",  # the claim as written
    "for_option": "For ({option})",
    "against_option": "Against ({option})",  # the selected option
    "for_answer": "Supports the answer",
    "against_answer": "Against the answer",  # an open answer's line
    "related": "Related evidence",  # no confident reading: no side
}
RELATED = "related"
MAX_STATEMENTS = 4
MAX_AGAINST = 1
QUOTE_CHARS = 320
RESTATES = 0.8


def role_of(entry: LedgerEntry, asserted: str = "") -> str | None:
    """The judge's reading as a role. A confident support only qualifies when it says its point needs confirming,
    or when `asserted` (what the answer states) claims an effect and the passage's statistics are all
    non-significant: "HR 0·63 (95% CI 0·35-1·13, p=0·12)" does not show that aspirin reduces the risk, however its
    authors word it; for "X does not reduce Y" such a passage is support."""
    if entry.stance == "CONTRADICT":
        return "contradicts"
    if entry.stance == "SUPPORT":
        null_for_effect = claims_an_effect(asserted) and only_non_significant(entry.text)
        return (
            "supports"
            if entry.confidence >= STRONG and not is_tentative(entry.text) and not null_for_effect
            else "qualifies"
        )
    return None


def reader_role(entry: LedgerEntry, answer: Hypothesis | None) -> tuple[str, str]:
    """(role, label) of a quote from `answer`'s ledger, stated towards what the reader sees (module docstring): a
    passage supporting the winning negation "Statins do not reduce ..." is "Against the claim", never "Supports"
    under "The evidence contradicts the claim"; a reading below STRONG, or one that only qualifies, is "Related
    evidence" (role "related")."""
    reading = role_of(entry, answer.text if answer else "")
    if reading not in ("supports", "contradicts") or entry.confidence < STRONG:
        return RELATED, ROLES[RELATED]
    backs = reading == "supports"
    if answer is not None and answer.origin in ("claim", "negation"):
        role = "supports_claim" if backs == (answer.polarity > 0) else "against_claim"
    elif answer is not None and answer.option_index is not None:
        role = "for_option" if backs else "against_option"
        return role, ROLES[role].format(option=option_label(answer.option_index))
    else:
        role = "for_answer" if backs else "against_answer"
    return role, ROLES[role]


def side_of(entry: LedgerEntry) -> Literal["for", "against"] | None:
    """The judge's reading of a quote towards the answer line, whatever its confidence (CitedSentence.side)."""
    return {"SUPPORT": "for", "CONTRADICT": "against"}.get(entry.stance)  # type: ignore[return-value]


def firmly_for(sentence: CitedSentence) -> bool:
    """A quote that takes the answer's side with a confident reading (what lets the verb say more than "weakly")."""
    return sentence.side == "for" and sentence.role not in (None, RELATED)


def _span(entry: LedgerEntry) -> set[int]:
    if entry.sentence_index is None:
        return set()
    return set(range(entry.sentence_index, entry.sentence_end or entry.sentence_index + 1))


def _normalised(text: str) -> str:
    return " ".join(strip_section_label(text).lower().split())


def _overlaps(entry: LedgerEntry, kept: list[LedgerEntry]) -> bool:
    """The same evidence said twice: one text inside the other, or, read the same way, the same record's overlapping
    sentences. Read the other way, overlapping windows are two readings a reader should see ("79 % of trials were
    completed" for, the window "... 21 % were discontinued ..." against); the same words are one."""
    text = _normalised(entry.text)
    for other in kept:
        other_text = _normalised(other.text)
        if text in other_text or other_text in text:
            return True
        if other.stance == entry.stance and other.record_id == entry.record_id and _span(entry) & _span(other):
            return True
    return False


def restates(entry: LedgerEntry, hypothesis: Hypothesis) -> bool:
    """The passage says what the answer line already says (its own source, for an open question's finding). An
    option's line shows the option ("(A) metformin"), not the statement its stem makes of it ("Metformin increases
    insulin sensitivity"): a passage saying the latter is the evidence for the line, not a repetition of it."""
    shown = hypothesis.text if hypothesis.origin == "option" else hypothesis.statement
    return _normalised(entry.text) == _normalised(shown) or jaccard(entry.text, shown) >= RESTATES


def prevailing(entries: list[LedgerEntry]) -> list[LedgerEntry]:
    """Each piece of text read once, by its strongest reading (confidence x weight, what the court ranks by; see
    _overlaps): a sentence read as against the answer inside a window read more strongly as for it is not shown, or
    counted, as evidence against."""
    kept: list[LedgerEntry] = []
    for entry in sorted(entries, key=lambda e: -e.confidence * e.weight):
        if not _overlaps(entry, kept):
            kept.append(entry)
    return kept


def evidence_entries(
    ledger: list[LedgerEntry], hypothesis: Hypothesis, limit: int = MAX_STATEMENTS
) -> list[LedgerEntry]:
    """The strongest distinct passages for and against `hypothesis`: support first, at most MAX_AGAINST against,
    each counted once (strength = confidence x weight, what the court ranks by)."""
    entries = [
        e
        for e in ledger
        if e.hypothesis_id == hypothesis.id and role_of(e) and is_finding(e.text) and not restates(e, hypothesis)
    ]
    kept = prevailing(entries)
    support = [e for e in kept if e.stance == "SUPPORT"]
    against = [e for e in kept if e.stance == "CONTRADICT"][:MAX_AGAINST]
    chosen = support[: limit - len(against)] + against
    return sorted(chosen, key=lambda e: (e.stance != "SUPPORT", not e.decided, -e.confidence * e.weight))


def quote_of(text: str, focus: str, limit: int = QUOTE_CHARS) -> str:
    """The passage as a quote of at most `limit` characters made of whole sentences: a window too long to quote whole
    keeps the sentences closest to the answer's statement (word overlap), in their order, an omission marked "[…]"
    as a scientist marks one, instead of breaking off mid-sentence; a sentence that says what the statement says is
    left out of such a choice, and so is one that states no finding (a window's "The aim of our retrospective study was
    to ...", seen quoted as "Supports"). A single sentence too long is cut with "…"."""
    text = " ".join(strip_section_label(text).split())
    sentences = split_sentences(text)
    findings = [i for i, sentence in enumerate(sentences) if is_finding(sentence)] or list(range(len(sentences)))
    if len(findings) == len(sentences) and (len(text) <= limit or len(sentences) < 2):
        return truncate(text, limit)
    # closest first, but not the sentence the answer line already states (an open answer's own finding, seen quoted
    # under it word for word): the window's other sentences are what it adds
    fresh = [i for i in findings if not focus or jaccard(sentences[i], focus) < RESTATES] or findings
    by_closeness = sorted(fresh, key=lambda i: (-jaccard(sentences[i], focus), i))
    chosen: list[int] = []
    used = 0  # characters taken, each chosen sentence with room for a "[…] " mark
    for i in by_closeness:
        if used + len(sentences[i]) <= limit:
            chosen.append(i)
            used += len(sentences[i]) + 4
    if not chosen:
        return truncate(sentences[by_closeness[0]], limit)
    chosen.sort()
    parts = [sentences[chosen[0]]]
    for before, i in itertools.pairwise(chosen):
        parts.append(("[…] " if i > before + 1 else "") + sentences[i])
    return " ".join(parts)


def with_antecedent(entry: LedgerEntry, record: Record | None, limit: int = QUOTE_CHARS) -> str:
    """The entry's text, after the record's sentence before it when the entry opens by pointing back at that one
    ("They also engraft as cholangiocytes ...") and both fit in a quote: a scientist quotes what "they" are. Only
    where the entry's index is the record's sentence index (abstracts; a full text's windows count otherwise)."""
    i = entry.sentence_index
    if record is None or not i or i >= len(record.sentences) or not opens_on_reference(entry.text):
        return entry.text
    before, first = strip_section_label(record.sentences[i - 1]), strip_section_label(record.sentences[i])
    text = strip_section_label(entry.text)
    if not first or not text.startswith(first[:60]) or not before or len(before) + 1 + len(text) > limit:
        return entry.text
    return f"{before} {text}"


def evidence_statement(
    entry: LedgerEntry, records: dict[str, Record], answer: Hypothesis | None = None
) -> CitedSentence:
    """'Supports the claim: "quote" (title, year)' citing the entry's record (its role: `reader_role`). The answer's
    statement chooses what a long window's quote keeps; what it asserts (its text: "X does not reduce Y" for a negation)
    decides whether non-significant statistics support it (role_of)."""
    record = records.get(entry.record_id)
    source = truncate(record.title, 90) if record and record.title else entry.record_id
    year = f", {record.year}" if record and record.year else ""
    role, label = reader_role(entry, answer)
    quote = quote_of(with_antecedent(entry, record), answer.statement if answer else "")
    return CitedSentence(
        text=f'{label}: "{quote}" ({source}{year})', citations=[entry.record_id], role=role, side=side_of(entry)
    )


def option_label(index: int) -> str:
    return chr(ord("A") + index)


_AUTHOR_VOICE = re.compile(
    r"^(?:(?:here|thus|therefore|together|taken together|overall|in summary|in conclusion|collectively|finally"
    r"|in (?:this|the present|our) (?:study|paper|work|report|article)),?\s+)?"
    r"(?P<subject>we|our (?P<own>data|results|findings|observations|analyses|analysis|study|work)|these "
    r"(?P<these>data|results|findings|observations))"
    r"\s+(?P<adverb>(?:have|has|also|further|now|therefore|thus)\s+)?(?P<verb>[a-z]+)\b(?P<rest>.*)$",
    re.I | re.S,
)
# what "we <verb>" becomes under "one study": third person singular of the present, the past as it is
_REPORTING = {
    "propose": "proposes",
    "show": "shows",
    "demonstrate": "demonstrates",
    "report": "reports",
    "conclude": "concludes",
    "suggest": "suggests",
    "find": "finds",
    "identify": "identifies",
    "describe": "describes",
    "provide": "provides",
    "reveal": "reveals",
    "establish": "establishes",
    "present": "presents",
    "hypothesize": "hypothesizes",
    "hypothesise": "hypothesises",
    "argue": "argues",
    "observe": "observes",
    "confirm": "confirms",
    "uncover": "uncovers",
    "discover": "discovers",
    "define": "defines",
    "characterize": "characterizes",
    "characterise": "characterises",
}


def reported(sentence: str) -> str:
    """A finding in the authors' voice as the answer reports it: 'We propose that X' -> 'One study proposes that X',
    'Our results suggest that X' -> 'One study's results suggest that X' (the answer does not speak as the authors,
    and says that this is one study's conclusion). Any other sentence is returned as it is."""
    match = _AUTHOR_VOICE.match(sentence.strip())
    if match is None:
        return sentence
    verb, adverb = match["verb"], (match["adverb"] or "").strip().lower()
    if match["subject"].lower() == "we":
        if adverb == "have":
            adverb = "has"
        elif (
            not adverb
            and verb.lower() not in _REPORTING
            and not verb.lower().endswith("ed")
            and verb.lower() not in ("found", "made", "saw")
        ):
            return sentence  # 'We therefore ...' with a verb this list does not conjugate: left in the authors' words
        subject = "One study"
        if adverb != "has":  # 'has shown' keeps its participle
            verb = _REPORTING.get(verb.lower(), verb)
    else:
        subject = f"One study's {(match['own'] or match['these']).lower()}"
    return " ".join(part for part in (subject, adverb, verb) if part) + match["rest"]


def sentence_case(statement: str) -> str:
    """A statement to follow 'that' or a colon: its first letter lowered unless it starts a name ('TNF-alpha',
    'IL-6'); the article 'A' is a word, not a name ('... suggests that a higher intake ...', seen printed as 'that A
    higher intake')."""
    first = statement.split(" ", 1)[0]
    if statement[1:2].islower() or first == "A":
        return statement[:1].lower() + statement[1:]
    return statement


def verdict_sentence(hypothesis: Hypothesis, task: str, polar: bool) -> str:
    """The answer in one plain sentence, before its confidence is known ('Yes: the evidence indicates that ...')."""
    statement = hypothesis.text.strip().rstrip(".")
    lowered = sentence_case(statement)
    if hypothesis.origin in ("claim", "negation") and polar:
        return f"{'Yes' if hypothesis.polarity > 0 else 'No'}: the evidence indicates that {lowered}."
    if hypothesis.origin in ("claim", "negation"):
        side = "supports" if hypothesis.polarity > 0 else "contradicts"
        return (
            f"The evidence {side} the claim: "
            f"{hypothesis.statement.strip().rstrip('.') if hypothesis.polarity < 0 else statement}."
        )
    if hypothesis.origin == "evidence":  # a record's own sentence, as one study's finding
        return f"{reported(statement)}."
    return f"{statement}."
