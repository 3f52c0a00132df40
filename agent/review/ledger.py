"""A scientist's review of the court's ledger: what is shown, which edits are valid, and the edited ledger.

The court reads each passage with a model a scientist can overrule: a sentence read as supporting that in fact
reports the opposite, a record about another population, a paper the search missed. The review point (the `review`
node, opt-in) stops after the court with its ledger numbered; the reviewer strikes passages, re-reads them (support /
against / unrelated) or adds a record the run retrieved, and the verdict is recomputed from the edited ledger. Here
is the part without I/O: the passages as the reviewer sees them (one per statement and sentence: a claim and its
negation share their sentences, read in reverse), the edits parsed and checked (ReviewError names what is wrong),
and the ledger and the court's readings with the edits applied.

Edits, as JSON (Studio's resume value, the SDK's `command.resume`, the Python API's `review=`):

    {"strike": ["p2"], "read": {"p3": "against"}, "add": ["RECORD_ID"]}

`{"approve": true}` approves the ledger as it is: the answer is the unreviewed one (the Python API sends it for `{}`
or None; over the SDK send it, since LangGraph reads an empty resume mapping as no value).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.english.lexicon import STANCE_FLIP
from agent.errors import InputError, SparkitError
from agent.literature import Record
from agent.records import STANCE_LABELS, Hypothesis, LedgerEntry, Stance

READINGS: dict[str, Stance] = {"support": "SUPPORT", "against": "CONTRADICT", "unrelated": "NEUTRAL"}
SHOWN: dict[Stance, str] = {stance: word for word, stance in READINGS.items()}
EDIT_KEYS = ("strike", "read", "add", "approve")
APPROVE = {"approve": True}
"""The ledger approved as it is. Not `{}`: LangGraph reads an empty resume mapping as no resume value at all."""


class ReviewError(InputError):
    """A review edit that does not fit the ledger under review (an unknown passage, reading or record), or a review
    of a run that is not waiting for one."""


@dataclass(frozen=True)
class ReviewPassage:
    """One passage as the reviewer sees it: its reading of `statement` (the claim itself for a claim's negation)."""

    id: str
    statement: str
    record_id: str
    sentence_index: int | None
    sentence_end: int | None
    text: str
    reading: Stance
    confidence: float
    decided: bool

    def key(self) -> tuple[str, str, int | None, int | None]:
        return (self.statement, self.record_id, self.sentence_index, self.sentence_end)

    def shown(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "statement": self.statement,
            "record_id": self.record_id,
            "text": self.text,
            "reading": SHOWN[self.reading],
            "confidence": round(self.confidence, 3),
            "decided": self.decided,
        }


@dataclass
class Edits:
    strike: list[str] = field(default_factory=list)
    read: dict[str, Stance] = field(default_factory=dict)
    add: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.strike or self.read or self.add)


def _entry_key(entry: LedgerEntry, hypotheses: dict[str, Hypothesis]) -> tuple[str, str, int | None, int | None]:
    statement = hypotheses[entry.hypothesis_id].statement if entry.hypothesis_id in hypotheses else ""
    return (statement, entry.record_id, entry.sentence_index, entry.sentence_end)


def review_passages(hypotheses: list[Hypothesis], ledger: list[LedgerEntry]) -> list[ReviewPassage]:
    """The ledger's passages, one per (statement, sentence), numbered p1, p2, ... in ledger order; each reading is of
    the statement itself (a negation's entry is read back, reversed)."""
    by_id = {h.id: h for h in hypotheses}
    seen: dict[tuple[str, str, int | None, int | None], ReviewPassage] = {}
    for entry in ledger:
        key = _entry_key(entry, by_id)
        if key in seen or entry.hypothesis_id not in by_id:
            continue
        polarity = by_id[entry.hypothesis_id].polarity
        reading = entry.stance if polarity >= 0 else STANCE_FLIP[entry.stance]
        seen[key] = ReviewPassage(
            f"p{len(seen) + 1}",
            key[0],
            entry.record_id,
            key[2],
            key[3],
            entry.text,
            reading,
            entry.confidence,
            entry.decided,
        )
    return list(seen.values())


def review_payload(
    question: str, hypotheses: list[Hypothesis], ledger: list[LedgerEntry], pool: dict[str, Record]
) -> dict[str, Any]:
    """What the review point shows (the interrupt's value): the question, the hypotheses as weighed, the passages
    numbered, the records the run retrieved that may be added, and how to answer."""
    passages = review_passages(hypotheses, ledger)
    in_ledger = {p.record_id for p in passages}
    return {
        "kind": "court_review",
        "question": question,
        "hypotheses": [
            {"id": h.id, "text": h.text, "verdict": h.verdict.value, "score": round(h.score, 3)} for h in hypotheses
        ],
        "passages": [p.shown() for p in passages],
        "addable": [{"record_id": rid, "title": r.title} for rid, r in pool.items() if rid not in in_ledger][:50],
        "how": 'resume with {"strike": ["p2"], "read": {"p3": "against"}, "add": ["RECORD_ID"]}; readings: '
        'support, against, unrelated; {"approve": true} keeps the ledger as it is',
    }


def parse_edits(value: Any, passages: list[ReviewPassage], pool: dict[str, Record]) -> Edits:
    """The reviewer's edits, checked against the ledger under review: ReviewError names the first that does not fit."""
    if value is None or value == {} or value == APPROVE:
        return Edits()
    if not isinstance(value, dict):
        raise ReviewError(f"a review is an object with {', '.join(EDIT_KEYS)} (got {type(value).__name__})")
    if "approve" in value and len(value) > 1:
        raise ReviewError('"approve" keeps the ledger as it is: send it alone, or the edits without it')
    unknown = sorted(set(value) - set(EDIT_KEYS))
    if unknown:
        raise ReviewError(f"a review has no field {unknown[0]!r}: its fields are {', '.join(EDIT_KEYS)}")
    ids = {p.id for p in passages}
    strike = _ids(value.get("strike") or [], "strike")
    read_value = value.get("read") or {}
    if not isinstance(read_value, dict):
        raise ReviewError('"read" maps passage ids to readings, e.g. {"p3": "against"}')
    for pid in [*strike, *read_value]:
        if pid not in ids:
            raise ReviewError(f"no passage {pid!r} in the ledger under review (passages p1-p{len(passages)})")
    read: dict[str, Stance] = {}
    for pid, word in read_value.items():
        if not isinstance(word, str) or word.strip().lower() not in READINGS:
            raise ReviewError(f"unknown reading {word!r} for {pid}: use support, against or unrelated")
        read[pid] = READINGS[word.strip().lower()]
    both = sorted(set(strike) & set(read))
    if both:
        raise ReviewError(f"{both[0]} is both struck and re-read: choose one")
    add = _ids(value.get("add") or [], "add")
    for rid in add:
        if rid not in pool:
            raise ReviewError(f"record {rid!r} is not among the {len(pool)} records this run retrieved")
    return Edits(strike=strike, read=read, add=list(dict.fromkeys(add)))


def _ids(value: Any, name: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReviewError(f'"{name}" is a list of ids (got {value!r:.60})')
    return [v.strip() for v in value]


@dataclass(frozen=True)
class Change:
    """One change the reviewer made, as the answer states it and the corrections file keeps it."""

    action: str  # 'strike', 'read' or 'add'
    statement: str
    record_id: str
    text: str
    before: str | None  # the court's reading (support / against / unrelated); None for an added record
    after: str | None  # the reviewer's; None for a struck passage

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


def edited_ledger(
    hypotheses: list[Hypothesis], ledger: list[LedgerEntry], passages: list[ReviewPassage], edits: Edits
) -> tuple[list[LedgerEntry], list[Change]]:
    """The ledger with struck passages removed and re-read ones taking the reviewer's reading (confidence 1: the
    reviewer is sure), for every hypothesis that reads that passage (reversed for a negation)."""
    by_id = {h.id: h for h in hypotheses}
    by_pid = {p.id: p for p in passages}
    struck = {by_pid[pid].key() for pid in edits.strike}
    reread = {by_pid[pid].key(): stance for pid, stance in edits.read.items()}
    kept: list[LedgerEntry] = []
    for entry in ledger:
        key = _entry_key(entry, by_id)
        if key in struck:
            continue
        if key in reread:
            stance = reread[key] if by_id[entry.hypothesis_id].polarity >= 0 else STANCE_FLIP[reread[key]]
            entry = entry.model_copy(update={"stance": stance, "confidence": 1.0, "reviewed": True})
        kept.append(entry)
    changes = [
        Change("strike", by_pid[p].statement, by_pid[p].record_id, by_pid[p].text, SHOWN[by_pid[p].reading], None)
        for p in edits.strike
    ]
    changes += [
        Change("read", by_pid[p].statement, by_pid[p].record_id, by_pid[p].text, SHOWN[by_pid[p].reading], SHOWN[s])
        for p, s in edits.read.items()
    ]
    return kept, changes


def edited_readings(
    readings: list[dict[str, Any]], passages: list[ReviewPassage], edits: Edits, statements: list[str]
) -> list[dict[str, Any]]:
    """The court's reading rows with the edits: a struck sentence's row removed; a re-read one's probabilities, every
    reader's and the negation's, set to the reviewer's reading (the verdict model then weighs it as a certain one)."""
    by_pid = {p.id: p for p in passages}
    struck = {_row_key(by_pid[pid], statements) for pid in edits.strike}
    reread = {_row_key(by_pid[pid], statements): stance for pid, stance in edits.read.items()}
    rows = []
    for row in readings:
        key = (row.get("statement"), row.get("record"), row.get("sentence"), row.get("sentence_end"))
        if row.get("kind") != "sentence" or key not in struck | set(reread):
            rows.append(row)
            continue
        if key in struck:
            continue
        stance = reread[key]
        certain = [1.0 if label == stance else 0.0 for label in STANCE_LABELS]
        rows.append(
            {
                **row,
                "p": certain,
                "readers": {name: list(certain) for name in row.get("readers", {})},
                **(
                    {"neg": [1.0 if label == STANCE_FLIP[stance] else 0.0 for label in STANCE_LABELS]}
                    if "neg" in row
                    else {}
                ),
                "structure_side": None,
                "reviewed": SHOWN[stance],
            }
        )
    return rows


def _row_key(passage: ReviewPassage, statements: list[str]) -> tuple[int, str, int | None, int | None]:
    index = statements.index(passage.statement) if passage.statement in statements else -1
    return (index, passage.record_id, passage.sentence_index, passage.sentence_end)


def reviewed_sentence(changes: list[dict[str, Any]]) -> str:
    """The answer's account of the review: 'Reviewed: 1 passage struck (27768226), 1 re-read (12345: against).'"""
    if not changes:
        return ""
    parts = []
    struck = [c for c in changes if c["action"] == "strike"]
    reread = [c for c in changes if c["action"] == "read"]
    added = [c for c in changes if c["action"] == "add"]
    if struck:
        parts.append(f"{len(struck)} passage(s) struck ({', '.join(c['record_id'] for c in struck)})")
    if reread:
        parts.append(
            f"{len(reread)} re-read ("
            + ", ".join(f"{c['record_id']}: {c['before']} -> {c['after']}" for c in reread)
            + ")"
        )
    if added:
        parts.append(f"{len(added)} record(s) added ({', '.join(c['record_id'] for c in added)})")
    return "A reviewer edited the court's ledger before this answer: " + "; ".join(parts) + "."


class ReviewPending(SparkitError):
    """A run stopped at its review point with no reviewer to ask: `run_id` resumes it with the edits
    (`resume(run_id, edits={...})`), `payload` is the ledger under review (review_payload)."""

    exit_code = 3

    def __init__(self, run_id: str, payload: dict[str, Any]):
        super().__init__(
            f"run {run_id} waits for a review of its court's ledger ({len(payload.get('passages', []))} passages): "
            f"`sparkit resume {run_id} --review`, or resume({run_id!r}, edits={{...}}) in Python ({{}} approves it)"
        )
        self.run_id = run_id
        self.payload = payload


def pending_review(interrupts: Any) -> dict[str, Any] | None:
    """The review payload a stopped run waits on (a StateSnapshot's `interrupts`), else None."""
    for item in interrupts or ():
        value = getattr(item, "value", None)
        if isinstance(value, dict) and value.get("kind") == "court_review":
            return value
    return None


def check_edits(values: dict[str, Any], interrupts: Any, edits: Any, run_id: str) -> None:
    """Refuse, before anything runs, edits to a run that is not waiting for a review or that do not fit its ledger."""
    if pending_review(interrupts) is None:
        raise ReviewError(f"run {run_id} is not waiting for a review (it is finished, or it never stopped for one)")
    passages = review_passages(values.get("hypotheses") or [], values.get("ledger") or [])
    parse_edits(edits, passages, values.get("pool") or {})


def resumable(edits: Any) -> Any:
    """Edits as a resume value LangGraph delivers: no edits (None, {}) become APPROVE."""
    return APPROVE if edits is None or edits == {} else edits
