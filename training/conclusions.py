"""Weakly labelled stance pairs from abstracts' own conclusions, the way PubMedQA built PQA-A and SciFact its claims.

SciFact has ~1,400 rationale sentences: too few for a judge to learn to read a result sentence *against* a
statement (the held-out SUPPORT-vs-CONTRADICT accuracy stays near the majority class). Every abstract, though,
ends in a conclusion that its result sentences support. So, per abstract outside the held-out and validation
groups:
- the conclusion, stripped of "These results suggest that", is a statement; the abstract's result sentence
  that shares the most content terms with it is SUPPORT;
- the conclusion with its polarity flipped (`negate_statement`: negation dropped, direction word swapped, or
  "not" added), paired with the same sentence, is CONTRADICT;
- both statements paired with a topically close sentence of another abstract are NEUTRAL, so a flipped
  statement is not read as contradiction by itself.

A flipped null result ("X did not reduce Y" -> "X reduced Y") paired with "no significant difference" is the
contradiction PubMedQA's "no" answers and SciFact's negated claims need. Labels are heuristic (a conclusion may
go beyond its results; the best-overlapping sentence may be methods); the noise is accepted and the effect is
measured on the held-out pairs and end to end (evals/HISTORY.md).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from agent.common.text import content_terms, is_finding, strip_section_label
from agent.english.lexicon import NEGATION_MARKER
from agent.scoring.chunking import sentence_sections
from benchmarks.splits import claim_docs, scifact_splits
from training.dataset import SentenceRetriever, StancePair, load_scifact, negate_statement

_CONCLUSION_SECTIONS = (
    "conclusion",
    "conclusions",
    "interpretation",
    "conclusions and relevance",
    "conclusion and relevance",
)
_CONCLUSION_CUE = re.compile(
    r"\b(suggests?|suggested|indicates?|indicated|demonstrates?|demonstrated|shows?|showed|reveals?|revealed|"
    r"conclude|concluded|establish(?:es|ed)?|provides? evidence|support(?:s|ed)? (?:the|a|our) )\b|^(?:in "
    r"conclusion|in summary|together|thus|overall)\b",
    re.I,
)
_LEAD_IN = re.compile(
    r"^(?:(?:in conclusion|in summary|taken together|together|thus|overall|collectively),?\s+)?"
    r"(?:[^,;:]{0,80}?\b(?:suggest|indicate|demonstrate|show|reveal|establish|conclude|confirm|support|provide "
    r"evidence)(?:s|ed|d)?\s+that\s+)?",
    re.I,
)
_RESULT_SECTIONS = ("results", "findings", "methods and results", "methods and findings", "results and conclusions")
MIN_SHARED_TERMS = 3
MAX_STATEMENT_WORDS = 40  # claims are a sentence; a paragraph-long conclusion is unlike anything the judge reads


def conclusion_of(sentences: list[str]) -> tuple[int, str] | None:
    """(index, statement) of an abstract's conclusion: its CONCLUSIONS section's first sentence, else a last
    sentence that reads as one; the statement without its section label and "these results suggest that"."""
    sections = sentence_sections(sentences)
    index = next((i for i, s in enumerate(sections) if s in _CONCLUSION_SECTIONS), None)
    if index is None and len(sentences) >= 4 and _CONCLUSION_CUE.search(strip_section_label(sentences[-1])):
        index = len(sentences) - 1
    if index is None:
        return None
    text = _LEAD_IN.sub("", strip_section_label(sentences[index]), count=1).strip()
    if len(content_terms(text)) < 4 or len(text.split()) > MAX_STATEMENT_WORDS or not is_finding(text):
        return None
    return index, text[0].upper() + text[1:]


def evidence_for(statement: str, sentences: list[str], conclusion_index: int, k: int = 2) -> list[str]:
    """The k result sentences before the conclusion sharing the most content terms with it (at least
    MIN_SHARED_TERMS); in a structured abstract only its results section counts."""
    sections = sentence_sections(sentences)
    structured = any(sections)
    wanted = set(content_terms(statement))
    scored = []
    for i, sentence in enumerate(sentences[:conclusion_index]):
        if structured and sections[i] not in _RESULT_SECTIONS:
            continue
        if not structured and i == 0:
            continue  # an unstructured abstract opens with background
        text = strip_section_label(sentence)
        shared = len(wanted & set(content_terms(text)))
        if shared >= MIN_SHARED_TERMS and is_finding(text):
            scored.append((shared, -i, text))
    return [text for _, _, text in sorted(scored, reverse=True)[:k]]


def excluded_docs(claims: list[dict]) -> set[int]:
    """Every document cited by a held-out or validation SciFact claim: never a source of training pairs."""
    splits = scifact_splits(claims)
    return {doc for claim in claims if splits[claim["id"]] != "train" for doc in claim_docs(claim)}


def _balanced(built: list[tuple[int, str, str, str]], rng: random.Random) -> list[tuple[int, str, str, str]]:
    """Keep as many twins whose flip *added* a negation as twins whose flip removed one, so "the statement
    says not" predicts neither label and the judge has to read the sentence (unbalanced, 62 % of the
    CONTRADICT statements carried a negation against 14 % of the SUPPORT ones)."""

    def flip(twin: tuple[int, str, str, str]) -> str:
        before, after = bool(NEGATION_MARKER.search(twin[1])), bool(NEGATION_MARKER.search(twin[2]))
        return "added" if after and not before else "removed" if before and not after else "other"

    added = [i for i, twin in enumerate(built) if flip(twin) == "added"]
    removed = sum(flip(twin) == "removed" for twin in built)
    dropped = set(added) - set(rng.sample(added, min(len(added), removed)))
    return [twin for i, twin in enumerate(built) if i not in dropped]


def conclusion_pairs(data_dir: Path, limit: int | None = None, seed: int = 0) -> list[StancePair]:
    """SUPPORT / CONTRADICT / NEUTRAL pairs built from SciFact corpus conclusions (module docstring), split
    'train' throughout; documents of held-out and validation claims are skipped."""
    corpus, claims = load_scifact(data_dir)
    skip = excluded_docs(claims)
    built: list[tuple[int, str, str, str]] = []
    for doc_id, doc in corpus.items():
        if doc_id in skip:
            continue
        found = conclusion_of(doc["abstract"])
        if found is None:
            continue
        index, statement = found
        evidence = evidence_for(statement, doc["abstract"], index, k=1)
        flipped = negate_statement(statement)
        if not evidence or flipped is None or flipped[0] == statement:
            continue
        built.append((doc_id, statement, flipped[0], evidence[0]))
    built = _balanced(built, random.Random(seed))[:limit]
    retriever = SentenceRetriever(corpus)
    hits = retriever.search([statement for _, statement, _, _ in built], k=20)
    pairs: list[StancePair] = []
    for (doc_id, statement, flipped, evidence), doc_hits in zip(built, hits):
        group = f"doc{doc_id}"
        pairs.append(StancePair(statement, evidence, "SUPPORT", "conclusion", group, "train"))
        pairs.append(StancePair(flipped, evidence, "CONTRADICT", "conclusion", group, "train"))
        other = next(((d, i) for d, i in doc_hits if d != doc_id and d not in skip), None)
        if other is not None:
            sentence = strip_section_label(corpus[other[0]]["abstract"][other[1]])
            pairs.append(StancePair(statement, sentence, "NEUTRAL", "conclusion", group, "train"))
            pairs.append(StancePair(flipped, sentence, "NEUTRAL", "conclusion", group, "train"))
    return pairs
