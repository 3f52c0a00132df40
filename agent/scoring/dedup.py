"""Semantic claim dedup: merge near-duplicate claims (cosine >= 0.85) so one finding repeated by many
papers counts once, but never merge claims about different chemical entities.

Embedding cosine cannot tell two enantiomers or drug analogs apart ("compound 50-00-0 inhibits X" vs
"compound 64-17-5 inhibits X" sit at ~0.9), so claims naming different CAS numbers, InChI strings,
InChIKeys or SMILES are kept apart whatever their cosine (seed 002's non-merge guard).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agent.interfaces import Embedder

DEFAULT_THRESHOLD = 0.85

_CAS = re.compile(r"(?<![\d-])(\d{2,7})-(\d{2})-(\d)(?![\d-])")
_INCHI = re.compile(r"InChI=1S?/[^\s,;]+")
_INCHIKEY = re.compile(r"(?<![A-Z])[A-Z]{14}-[A-Z]{10}-[A-Z](?![A-Z])")
_SMILES_LABELLED = re.compile(r"SMILES\s*[:=]?\s*([^\s,;]+)", re.IGNORECASE)
_SMILES_CHARS = re.compile(r"[BCNOPSFIHbcnops0-9\[\]()=#@+\-\\/%lr.]+")
_SMILES_ATOM = re.compile(r"Cl|Br|[BCNOPSFI]|[bcnops]")
_BRACKET_ATOM = re.compile(r"\[[^\]]*\]")


def _valid_cas(number: str, check: str) -> bool:
    """CAS check digit: weighted sum of the other digits mod 10 (keeps dates and page ranges out)."""
    digits = [int(d) for d in number.replace("-", "")][::-1]
    return sum((i + 1) * d for i, d in enumerate(digits)) % 10 == int(check)


def _balanced(token: str) -> bool:
    return token.count("(") == token.count(")") and token.count("[") == token.count("]")


def _looks_like_smiles(token: str) -> bool:
    """A SMILES string, told from gene names (NOS2) and abbreviations ((CO)) by its grammar: only SMILES
    characters, >= 3 atoms, balanced brackets, and a bond (=#), chirality (@), branch or paired ring digits."""
    if len(token) < 4 or token[0] in "()" or not _SMILES_CHARS.fullmatch(token) or not _balanced(token):
        return False
    if len(_SMILES_ATOM.findall(token)) < 3:
        return False
    bare = _BRACKET_ATOM.sub("A", token)  # digits inside [13CH3] are isotopes/H counts, not ring closures
    digits = [d for d in bare if d.isdigit()]
    rings = bool(digits) and all(digits.count(d) % 2 == 0 for d in set(digits))
    if digits and not rings:
        return False
    return rings or any(mark in token for mark in "=#@(")


def chemical_identifiers(text: str) -> frozenset[str]:
    """Chemical identifiers named in `text`, prefixed by kind ('cas:50-00-0', 'inchikey:...', 'smiles:...')."""
    found: set[str] = set()
    for a, b, check in _CAS.findall(text or ""):
        if _valid_cas(a + b, check):
            found.add(f"cas:{a}-{b}-{check}")
    found.update(f"inchi:{m}" for m in _INCHI.findall(text or ""))
    found.update(f"inchikey:{m}" for m in _INCHIKEY.findall(text or ""))
    labelled = [t.rstrip(".") for t in _SMILES_LABELLED.findall(text or "")]
    found.update(f"smiles:{t}" for t in labelled if t and not t.startswith("InChI"))
    for token in (text or "").split():
        token = token.rstrip(".,;:")
        if token.startswith("InChI"):
            continue
        if _looks_like_smiles(token):
            found.add(f"smiles:{token}")
    return frozenset(found)


def identifiers_conflict(a: frozenset[str], b: frozenset[str]) -> bool:
    """True when both texts name chemical identifiers and the sets differ (a text naming none never conflicts)."""
    return bool(a) and bool(b) and a != b


@dataclass(frozen=True)
class ClaimGroup:
    """Claims merged into one canonical claim; `representative` is the first member seen."""

    representative: int
    members: tuple[int, ...]


def dedup_claims(
    texts: Sequence[str], embeddings: np.ndarray, threshold: float = DEFAULT_THRESHOLD
) -> list[ClaimGroup]:
    """Greedy leader clustering: each claim joins the first group whose representative it matches at
    cosine >= threshold and none of whose members names different chemical identifiers.

    `embeddings` must be L2-normalised, one row per text (the encoder's output).
    """
    if len(texts) != len(embeddings):
        raise ValueError(f"{len(texts)} texts but {len(embeddings)} embeddings")
    ids = [chemical_identifiers(t) for t in texts]
    groups: list[list[int]] = []
    for i in range(len(texts)):
        for group in groups:
            leader = group[0]
            if float(embeddings[i] @ embeddings[leader]) < threshold:
                continue
            if any(identifiers_conflict(ids[i], ids[j]) for j in group):
                continue
            group.append(i)
            break
        else:
            groups.append([i])
    return [ClaimGroup(g[0], tuple(g)) for g in groups]


async def dedup_texts(
    texts: Sequence[str], embedder: Embedder, threshold: float = DEFAULT_THRESHOLD
) -> list[ClaimGroup]:
    """`dedup_claims` with the embeddings computed by `embedder` (e.g. the shared MiniLM encoder)."""
    if not texts:
        return []
    vectors = await embedder.embed(list(texts), kind="document")
    return dedup_claims(texts, vectors, threshold)
