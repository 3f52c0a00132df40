"""Pair features for the trained stance model: frozen MiniLM embeddings plus lexical cue features.

The embedding block [u, v, u*v, |u-v|] says how related the statement and passage are and what they are
about; the cue block adds what the embeddings blur (negation, direction, null results, numbers, overlap).
The training script and the inference judge both build features here, and the weights file records
`FEATURE_NAMES`, so a change to this module that would silently break a trained model is caught at load.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from agent.common.text import content_terms
from agent.judges.cues import Cues, cues, pair_cues

EMBED_DIM = 384
CUE_NAMES: tuple[str, ...] = (
    "cosine",
    "jaccard",
    "coverage",
    "statement_len",
    "passage_len",
    "s_neg",
    "p_neg",
    "negation_mismatch",
    "s_polarity",
    "p_polarity",
    "direction_conflict",
    "direction_agree",
    "s_null",
    "p_null",
    "null_mismatch",
    "s_hedged",
    "p_hedged",
    "s_numbers",
    "p_numbers",
    "number_overlap",
    "number_conflict",
    "cos_x_negation_mismatch",
    "cos_x_direction_conflict",
    "cos_x_null_mismatch",
)
EMBED_NAMES: tuple[str, ...] = tuple(f"{block}{i}" for block in ("u", "v", "uv", "absdiff") for i in range(EMBED_DIM))
FEATURE_NAMES: tuple[str, ...] = EMBED_NAMES + CUE_NAMES


@lru_cache(maxsize=50_000)
def _text_view(text: str) -> tuple[Cues, frozenset[str], int]:
    """Cues, content terms and word count of a text; cached because the court repeats statements and passages."""
    terms = content_terms(text)
    return cues(text), frozenset(terms), len(text.split())


def _sign(x: int) -> float:
    return float((x > 0) - (x < 0))


def cue_features(statement: str, passage: str, cosine: float) -> list[float]:
    """The cue block for one pair, in CUE_NAMES order."""
    s_cues, s_terms, s_len = _text_view(statement)
    p_cues, p_terms, p_len = _text_view(passage)
    pc = pair_cues(s_cues, p_cues)
    shared = len(s_terms & p_terms)
    union = len(s_terms | p_terms)
    neg_mismatch, dir_conflict, null_mismatch = (
        float(pc.negation_mismatch),
        float(pc.direction_conflict),
        float(pc.null_mismatch),
    )
    return [
        cosine,
        shared / union if union else 0.0,
        shared / len(s_terms) if s_terms else 0.0,
        math.log1p(s_len) / 5.0,
        math.log1p(p_len) / 5.0,
        min(s_cues.negations, 3) / 3.0,
        min(p_cues.negations, 3) / 3.0,
        neg_mismatch,
        _sign(s_cues.polarity),
        _sign(p_cues.polarity),
        dir_conflict,
        float(pc.direction_agree),
        float(s_cues.null_result),
        float(p_cues.null_result),
        null_mismatch,
        float(s_cues.hedged),
        float(p_cues.hedged),
        float(bool(s_cues.numbers)),
        float(bool(p_cues.numbers)),
        pc.number_overlap,
        float(pc.number_conflict),
        cosine * neg_mismatch,
        cosine * dir_conflict,
        cosine * null_mismatch,
    ]


def pair_features(u: np.ndarray, v: np.ndarray, statements: list[str], passages: list[str]) -> np.ndarray:
    """Feature matrix [n, len(FEATURE_NAMES)] from normalised statement (u) and passage (v) embeddings."""
    if u.shape != v.shape or u.shape[0] != len(statements) or len(statements) != len(passages):
        raise ValueError("pair_features: statements, passages and their embeddings must align")
    cosine = np.einsum("ij,ij->i", u, v)
    cue_block = np.array(
        [cue_features(s, p, float(c)) for s, p, c in zip(statements, passages, cosine)], dtype=np.float32
    ).reshape(len(statements), len(CUE_NAMES))
    return np.hstack([u, v, u * v, np.abs(u - v), cue_block]).astype(np.float32)
