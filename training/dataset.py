"""Labelled (statement, passage) pairs for training and evaluating stance judges, with fixed hold-out rules.

Sources, all real labelled data from `../shared/data`:
- SciFact claims_train rationales: each rationale sentence of an evidence document -> SUPPORT / CONTRADICT.
- SciFact non-evidence sentences -> NEUTRAL: the other sentences of cited abstracts, every sentence of a cited
  abstract that has no rationale, and the top BM25-retrieved sentences of abstracts the claim does not cite.
- SciFact abstract-level pairs (claim, title + whole abstract): the evidence label, or NEUTRAL for a cited
  abstract without rationale and for the top retrieved non-cited abstract (the court also judges whole abstracts).
- HealthVer dev (evidence, claim) pairs: Supports / Refutes / Neutral.
- PubMedQA PQA-L (`pqal_dev`, expert-labelled; only with `train_cross_stance.py --pubmedqa`, not in the
  shipped judge): the question as the claim a "yes" asserts (`polar_to_claim`) against the abstract's
  conclusion (`LONG_ANSWER`) and against its results section: yes -> SUPPORT, no -> CONTRADICT ("maybe"
  questions are left out: an inconclusive study neither supports nor is unrelated).

Hold-out rules (never trained on; every reported number comes from them): benchmarks/splits.py.

The BM25-retrieved neutrals may include a few unannotated supporting sentences (SciFact's annotation is not
exhaustive); that label noise is accepted and documented in evals/HISTORY.md.
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from agent.english.lexicon import CONTRACTED_NEGATIONS, DIRECTION_SWAPS, STANCE_FLIP
from agent.english.questions import polar_to_claim
from agent.records import Stance
from benchmarks.splits import Split, claim_docs, healthver_split, pubmedqa_split, scifact_splits

LABELS: tuple[Stance, ...] = ("SUPPORT", "CONTRADICT", "NEUTRAL")

SCIFACT_LABELS: dict[str, Stance] = {"SUPPORT": "SUPPORT", "CONTRADICT": "CONTRADICT"}
HEALTHVER_LABELS: dict[str, Stance] = {"Supports": "SUPPORT", "Refutes": "CONTRADICT", "Neutral": "NEUTRAL"}
PUBMEDQA_LABELS: dict[str, Stance] = {"yes": "SUPPORT", "no": "CONTRADICT"}


@dataclass(frozen=True)
class StancePair:
    """One labelled pair; `kind` says where it came from so metrics can be reported per kind."""

    statement: str
    passage: str
    label: Stance
    kind: str  # rationale | cited | retrieved | abstract | healthver | pubmedqa | negated
    group: str  # claim id or HealthVer topic, for grouping and inspection
    split: Split
    source: str = "scifact"  # the dataset it came from (training/pool.py)
    weight: float = 1.0  # its weight in the training loss


def default_data_dir() -> Path:
    """`../shared/data` relative to the repository root (where the shared datasets live)."""
    return Path(__file__).resolve().parents[2] / "shared" / "data"


def load_scifact(data_dir: Path) -> tuple[dict[int, dict], list[dict]]:
    """SciFact corpus (doc_id -> document) and the labelled training claims."""
    corpus: dict[int, dict] = {}
    with (data_dir / "scifact" / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            corpus[int(doc["doc_id"])] = doc
    with (data_dir / "scifact" / "claims_train.jsonl").open(encoding="utf-8") as handle:
        claims = [json.loads(line) for line in handle if line.strip()]
    return corpus, claims


def _passage_text(doc: dict) -> str:
    return f"{doc['title']} {' '.join(doc['abstract'])}".strip()


class SentenceRetriever:
    """BM25 over every corpus sentence: finds topically close sentences that are not evidence."""

    def __init__(self, corpus: dict[int, dict]):
        import bm25s
        import Stemmer

        self._stemmer = Stemmer.Stemmer("english")
        self.owners: list[tuple[int, int]] = [(d, i) for d, doc in corpus.items() for i in range(len(doc["abstract"]))]
        texts = [corpus[d]["abstract"][i] for d, i in self.owners]
        self._bm25 = bm25s.BM25()
        self._bm25.index(self._tokenize(texts), show_progress=False)

    def _tokenize(self, texts: list[str]):
        import bm25s

        return bm25s.tokenize(texts, stopwords="en", stemmer=self._stemmer, show_progress=False)

    def search(self, queries: list[str], k: int) -> list[list[tuple[int, int]]]:
        hits, _ = self._bm25.retrieve(self._tokenize(queries), k=k, show_progress=False, n_threads=1)
        return [[self.owners[int(j)] for j in row] for row in hits]


def scifact_pairs(data_dir: Path, retrieved_per_claim: int = 5) -> list[StancePair]:
    """All SciFact pairs (sentence- and abstract-level) of claims_train, each tagged with its split."""
    corpus, claims = load_scifact(data_dir)
    splits = scifact_splits(claims)
    retriever = SentenceRetriever(corpus)
    hits = retriever.search([c["claim"] for c in claims], k=retrieved_per_claim * 6 + 20)
    pairs: list[StancePair] = []
    for claim, claim_hits in zip(claims, hits):
        text, group, split = claim["claim"], str(claim["id"]), splits[claim["id"]]
        docs = [d for d in claim_docs(claim) if d in corpus]
        for doc_id in docs:
            doc = corpus[doc_id]
            labelled: dict[int, Stance] = {}
            doc_labels: set[Stance] = set()
            for rationale in claim["evidence"].get(str(doc_id), []):
                label = SCIFACT_LABELS[rationale["label"]]
                doc_labels.add(label)
                for index in rationale["sentences"]:
                    labelled[index] = label
            for index, sentence in enumerate(doc["abstract"]):
                label = labelled.get(index, "NEUTRAL")
                kind = "rationale" if index in labelled else "cited"
                pairs.append(StancePair(text, sentence, label, kind, group, split))
            if len(doc_labels) <= 1:  # a document with mixed labels has no single abstract-level label
                abstract_label = next(iter(doc_labels), "NEUTRAL")
                pairs.append(StancePair(text, _passage_text(doc), abstract_label, "abstract", group, split))
        cited = set(docs)
        retrieved = [(d, i) for d, i in claim_hits if d not in cited][:retrieved_per_claim]
        for doc_id, index in retrieved:
            pairs.append(StancePair(text, corpus[doc_id]["abstract"][index], "NEUTRAL", "retrieved", group, split))
        if retrieved:
            pairs.append(StancePair(text, _passage_text(corpus[retrieved[0][0]]), "NEUTRAL", "abstract", group, split))
    return pairs


def healthver_pairs(data_dir: Path) -> list[StancePair]:
    """HealthVer dev pairs, split by topic (held out: topic_ip % 5 == 0; validation: % 5 == 1)."""
    pairs: list[StancePair] = []
    with (data_dir / "healthver" / "healthver_dev.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            topic = int(row["topic_ip"])
            split = healthver_split(topic)
            claim, evidence = row["claim"].strip(), row["evidence"].strip()
            if claim and evidence:
                pairs.append(
                    StancePair(claim, evidence, HEALTHVER_LABELS[row["label"]], "healthver", str(topic), split)
                )
    return pairs


def _results_section(item: dict) -> str:
    """The contexts labelled as results (the last context when none is), as one passage."""
    labels = item.get("LABELS") or []
    results = [text for text, label in zip(item["CONTEXTS"], labels) if "RESULT" in (label or "").upper()]
    return " ".join(results or item["CONTEXTS"][-1:])


def pubmedqa_pairs(data_dir: Path) -> list[StancePair]:
    """PubMedQA PQA-L yes/no questions as (claim, conclusion) and (claim, results) pairs, each tagged with its split."""
    path = data_dir / "pubmedqa" / "pqal_dev.json"
    if not path.exists():
        return []
    pairs: list[StancePair] = []
    for pmid, item in json.loads(path.read_text(encoding="utf-8")).items():
        label = PUBMEDQA_LABELS.get(item.get("final_decision", ""))
        if label is None:
            continue
        claim, split = polar_to_claim(item["QUESTION"]), pubmedqa_split(pmid)
        for passage in (item.get("LONG_ANSWER", ""), _results_section(item)):
            if passage.strip():
                pairs.append(StancePair(claim, passage.strip(), label, "pubmedqa", pmid, split))
    return pairs


# --- negation augmentation ---------------------------------------------------------------------------
# SciFact's contradicting claims were written by negating or reversing supported claims. Flipping a training
# claim the same way and flipping its label teaches the model to read the cue features instead of topic alone.

_NEGATION_EDITS = (
    (re.compile(r"\b(does|do|did|is|are|was|were|can|could|may|might|will|has|have|had) not\b", re.I), r"\1"),
    (re.compile(r"\b(doesn't|don't|didn't|isn't|aren't|wasn't|weren't|cannot)\b", re.I), None),
    (re.compile(r"\bnot\s+", re.I), ""),
)
_AUXILIARY = re.compile(r"\b(is|are|was|were|can|could|may|might|will|has|have|had|does|do|did)\b(?! not)", re.I)
_ANTONYM_RE = re.compile(r"\b(" + "|".join(sorted(DIRECTION_SWAPS, key=len, reverse=True)) + r")\b", re.I)


def negate_statement(text: str) -> tuple[str, str] | None:
    """A statement of the opposite polarity and the rule used ('negation' or 'antonym').

    Drops the statement's negation, else swaps its first direction word, else adds 'not' after its first
    auxiliary. Returns None when no rule applies (the pair is then not augmented).
    """
    for pattern, repl in _NEGATION_EDITS:
        if pattern.search(text):
            if repl is None:
                return pattern.sub(lambda m: CONTRACTED_NEGATIONS[m.group(1).lower()], text, count=1), "negation"
            return pattern.sub(repl, text, count=1), "negation"
    if _ANTONYM_RE.search(text):
        return _ANTONYM_RE.sub(lambda m: DIRECTION_SWAPS[m.group(1).lower()], text, count=1), "antonym"
    if _AUXILIARY.search(text):
        return _AUXILIARY.sub(lambda m: f"{m.group(1)} not", text, count=1), "negation"
    return None


def negation_augment(pairs: list[StancePair], neutral_per_claim: int = 2) -> list[StancePair]:
    """Negated copies of training rationale pairs with flipped labels, plus a few negated-claim neutrals.

    The neutrals keep the model from learning "negated statement means contradiction". A contradicted claim
    is only flipped by negation: the antonym of a refuted "X increases Y" need not be supported ("no effect").
    """
    out: list[StancePair] = []
    neutrals: dict[str, int] = defaultdict(int)
    for pair in pairs:
        if pair.split == "heldout" or pair.kind not in ("rationale", "cited", "healthver", "pubmedqa"):
            continue
        edit = negate_statement(pair.statement)
        if edit is None or edit[0] == pair.statement or (pair.label == "CONTRADICT" and edit[1] == "antonym"):
            continue
        negated = edit[0]
        if pair.label == "NEUTRAL":
            key = f"{pair.kind}:{pair.group}:{pair.statement}"
            if neutrals[key] >= neutral_per_claim:
                continue
            neutrals[key] += 1
        out.append(replace(pair, statement=negated, label=STANCE_FLIP[pair.label], kind="negated"))
    return out
