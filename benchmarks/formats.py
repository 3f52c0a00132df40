"""Readers for the benchmarks' files: JSON Lines, and labelled claim-verification files, each turned into
(statement, passage, label) pairs.

Used by the pair-level stance eval (`python -m evals.stance`) and by the training pool (training/pool.py), so
a file is read the same way whether it trains or scores a judge. The format is detected from the content:

- HealthVer CSV (`id, evidence, claim, label, ...`): one pair per row; Supports / Refutes / Neutral.
- CliniFact CSV (`claim, article_title, article_abstract, label, ...`): the claim against title + abstract;
  1 (TRUE) -> SUPPORT, 0 (FALSE: negative or inconclusive result) -> CONTRADICT, 2 (NONE) -> NEUTRAL.
- SciFact / MultiVerS claims JSONL (`claim`, `evidence: {doc_id: [{sentences, label}]}`, `cited_doc_ids` or
  `doc_ids`) with a corpus JSONL (`doc_id`, `title`, `abstract` as sentences): each rationale set (its sentences
  joined in order) -> its label; every other sentence of a listed abstract -> NEUTRAL.
- Check-COVID JSON lines (`claim`, `cord_id`, `label`, `evidence_set: [{sent_index}]`) with its `corpus.json`
  (JSON lines of `cord_id`, `abstract` sentences): the claim against its evidence sentences joined in order;
  SUPPORT / REFUTE -> CONTRADICT / NOTENOUGHINFO -> NEUTRAL (Check-COVID marks evidence for NEI claims too).
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent.common.jsonl import parse_jsonl
from agent.errors import InputError
from agent.records import Stance

Format = Literal["healthver_csv", "clinifact_csv", "multivers_jsonl", "check_covid_jsonl", "pairs_jsonl"]

HEALTHVER_LABELS: dict[str, Stance] = {"Supports": "SUPPORT", "Refutes": "CONTRADICT", "Neutral": "NEUTRAL"}
CLINIFACT_LABELS: dict[str, Stance] = {"1": "SUPPORT", "0": "CONTRADICT", "2": "NEUTRAL"}
MULTIVERS_LABELS: dict[str, Stance] = {"SUPPORT": "SUPPORT", "CONTRADICT": "CONTRADICT"}
CHECK_COVID_LABELS: dict[str, Stance] = {"SUPPORT": "SUPPORT", "REFUTE": "CONTRADICT", "NOTENOUGHINFO": "NEUTRAL"}
PAIR_LABELS: dict[str, Stance] = {"SUPPORT": "SUPPORT", "CONTRADICT": "CONTRADICT", "NEUTRAL": "NEUTRAL"}


class FormatError(InputError):
    """The file is not one of the readable formats, or it needs a corpus that was not given (an InputError, so
    evals.report.read_or_exit ends an eval on it with one line and exit 2)."""


def read_jsonl(path: Path) -> list[Any]:
    """Every non-blank line of a JSON Lines file (claims, queries, answers); a line that is not JSON is an InputError
    naming the file and the line."""
    with path.open(encoding="utf-8") as handle:
        return [
            value
            for _, value in parse_jsonl(
                handle, lambda number, msg: InputError(f"{path} line {number} is not JSON: {msg}")
            )
        ]


@dataclass(frozen=True)
class LabelledPair:
    """A (statement, passage) pair with its gold stance; `group` is the claim (or topic) it belongs to."""

    statement: str
    passage: str
    label: Stance
    group: str
    kind: str = "pair"  # rationale | sentence | abstract | evidence | pair
    extra: dict = field(default_factory=dict, compare=False, hash=False)


def _first_line(path: Path) -> str:
    with path.open(encoding="utf-8", errors="replace", newline="") as handle:
        return handle.readline()


def detect_format(path: Path) -> Format:
    """The file's format, read from its first line (CSV header or the first JSON object's keys)."""
    if not path.is_file():
        raise FormatError(f"not a file: {path}")
    first = _first_line(path).strip()
    if first.startswith("{"):
        try:
            keys = set(json.loads(first))
        except json.JSONDecodeError as exc:
            raise FormatError(f"{path}: the first line is not a JSON object ({exc.msg})") from None
        if {"claim", "evidence_set"} <= keys and ("cord_id" in keys or "doc_id" in keys):
            return "check_covid_jsonl"
        if {"claim", "evidence"} <= keys:
            return "multivers_jsonl"
        if {"statement", "passage", "label"} <= keys:
            return "pairs_jsonl"
        raise FormatError(
            f"{path}: JSON lines with keys {sorted(keys)} are neither SciFact/MultiVerS nor Check-COVID claims "
            "nor labelled pairs (statement, passage, label)"
        )
    header = {h.strip() for h in next(csv.reader([first]), [])}
    if {"evidence", "claim", "label"} <= header:
        return "healthver_csv"
    if {"claim", "article_abstract", "label"} <= header:
        return "clinifact_csv"
    raise FormatError(
        f"{path}: unknown format (a CSV needs HealthVer's or CliniFact's header; "
        "JSON lines need SciFact's or Check-COVID's keys)"
    )


def _jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise FormatError(f"{path}:{number}: not JSON ({exc.msg})") from None


def _csv_rows(path: Path) -> Iterator[dict[str, str]]:
    csv.field_size_limit(sys.maxsize)
    with path.open(encoding="utf-8", newline="") as handle:
        yield from csv.DictReader(handle)


def _label(mapping: dict[str, Stance], raw: str, where: str) -> Stance:
    try:
        return mapping[raw.strip()]
    except KeyError:
        raise FormatError(f"{where}: unknown label {raw!r} (expected one of {sorted(mapping)})") from None


def healthver_csv(path: Path) -> Iterator[LabelledPair]:
    for row in _csv_rows(path):
        claim, evidence = (row.get("claim") or "").strip(), (row.get("evidence") or "").strip()
        if claim and evidence:
            label = _label(HEALTHVER_LABELS, row["label"], f"{path} row {row.get('id')}")
            yield LabelledPair(
                claim,
                evidence,
                label,
                str(row.get("topic_ip") or row.get("id")),
                "evidence",
                {"id": row.get("id"), "topic": row.get("topic_ip")},
            )


def clinifact_csv(path: Path, skip_pmids: frozenset[str] = frozenset()) -> Iterator[LabelledPair]:
    for row in _csv_rows(path):
        if row.get("PMID", "").strip() in skip_pmids:
            continue
        claim, abstract = (row.get("claim") or "").strip(), (row.get("article_abstract") or "").strip()
        if claim and abstract:
            title = (row.get("article_title") or "").strip()
            label = _label(CLINIFACT_LABELS, row["label"], f"{path} row {row.get('index')}")
            yield LabelledPair(
                claim,
                f"{title} {abstract}".strip(),
                label,
                str(row.get("nctId") or row.get("index")),
                "abstract",
                {"pmid": row.get("PMID"), "title": title, "abstract": abstract},
            )


def pairs_jsonl(path: Path) -> Iterator[LabelledPair]:
    """Labelled pairs written out one per line (statement, passage, label), e.g. evals/data/plain_pairs.jsonl."""
    for number, row in enumerate(_jsonl(path), 1):
        statement, passage = row.get("statement"), row.get("passage")
        if not (isinstance(statement, str) and isinstance(passage, str) and statement.strip() and passage.strip()):
            raise FormatError(f"{path}:{number}: a pair needs a non-empty statement and passage")
        yield LabelledPair(
            statement, passage, _label(PAIR_LABELS, str(row.get("label")), f"{path}:{number}"), group=statement
        )


def read_corpus(path: Path, id_key: str = "doc_id") -> dict[str, dict]:
    """A corpus of abstracts as sentence lists, keyed by id as a string."""
    corpus: dict[str, dict] = {}
    for doc in _jsonl(path):
        key = doc.get(id_key, doc.get("doc_id", doc.get("cord_id")))
        abstract = doc.get("abstract") or []
        if isinstance(abstract, str):
            abstract = [abstract]
        corpus[str(key)] = {"title": doc.get("title") or "", "sentences": [s.strip() for s in abstract]}
    return corpus


def listed_docs(claim: dict) -> list[str]:
    """The abstracts a SciFact (cited_doc_ids) or MultiVerS (doc_ids) claim lists, evidence documents included."""
    listed = claim.get("doc_ids") or claim.get("cited_doc_ids") or []
    return list(dict.fromkeys([str(d) for d in listed] + [str(d) for d in claim.get("evidence") or {}]))


def multivers_jsonl(path: Path, corpus: dict[str, dict]) -> Iterator[LabelledPair]:
    for claim in _jsonl(path):
        text = claim["claim"].strip()
        for doc_id in listed_docs(claim):
            doc = corpus.get(doc_id)
            if doc is None:
                continue
            in_rationale: set[int] = set()
            for rationale in (claim.get("evidence") or {}).get(doc_id, []):
                label = _label(MULTIVERS_LABELS, rationale["label"], f"{path} claim {claim.get('id')}")
                indices = sorted(i for i in rationale["sentences"] if i < len(doc["sentences"]))
                in_rationale.update(indices)
                if indices:
                    yield LabelledPair(
                        text,
                        " ".join(doc["sentences"][i] for i in indices),
                        label,
                        str(claim.get("id")),
                        "rationale",
                        {"doc": doc_id, "sentences": indices},
                    )
            for i, sentence in enumerate(doc["sentences"]):
                if i not in in_rationale and sentence:
                    yield LabelledPair(
                        text, sentence, "NEUTRAL", str(claim.get("id")), "sentence", {"doc": doc_id, "sentences": [i]}
                    )


def check_covid_jsonl(
    path: Path, corpus: dict[str, dict], skip_docs: frozenset[str] = frozenset()
) -> Iterator[LabelledPair]:
    for claim in _jsonl(path):
        doc_id = str(claim.get("cord_id") or claim.get("doc_id"))
        doc = corpus.get(doc_id)
        if doc is None or doc_id in skip_docs:
            continue
        indices = sorted(
            {e["sent_index"] for e in claim.get("evidence_set") or [] if e["sent_index"] < len(doc["sentences"])}
        )
        if indices:
            label = _label(CHECK_COVID_LABELS, claim["label"], f"{path} claim {claim.get('id')}")
            yield LabelledPair(
                claim["claim"].strip(),
                " ".join(doc["sentences"][i] for i in indices),
                label,
                str(claim.get("id")),
                "evidence",
                {"doc": doc_id, "sentences": indices},
            )


def default_corpus_for(path: Path, fmt: Format) -> Path | None:
    """Where a claims file's corpus usually sits: `corpus.jsonl` beside it (SciFact, MultiVerS), `corpus.json` beside
    it or one folder up (Check-COVID's train/ and dev/ folders)."""
    names = ("corpus.json",) if fmt == "check_covid_jsonl" else ("corpus.jsonl",)
    for folder in (path.parent, path.parent.parent):
        for name in names:
            if (folder / name).is_file():
                return folder / name
    return None


def read_pairs(path: Path, corpus: Path | None = None) -> tuple[Format, list[LabelledPair]]:
    """Every labelled pair of a file, in file order, with the detected format."""
    fmt = detect_format(path)
    if fmt == "healthver_csv":
        return fmt, list(healthver_csv(path))
    if fmt == "clinifact_csv":
        return fmt, list(clinifact_csv(path))
    if fmt == "pairs_jsonl":
        return fmt, list(pairs_jsonl(path))
    corpus = corpus or default_corpus_for(path, fmt)
    if corpus is None:
        raise FormatError(f"{path} ({fmt}) needs its corpus: pass --corpus FILE")
    if fmt == "check_covid_jsonl":
        return fmt, list(check_covid_jsonl(path, read_corpus(corpus, "cord_id")))
    return fmt, list(multivers_jsonl(path, read_corpus(corpus)))
