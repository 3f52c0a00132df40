"""Fixtures for the library tests: sample papers typeset at test time from SciFact text, and a fast encoder.

Store logic (dedupe, incremental updates, atomic commits) does not depend on what the vectors mean, so those
tests swap the MiniLM encoder for a deterministic hashing one that counts what it encodes; the tests marked
slow use the real model end to end.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from evals.pdf_samples import SamplePaper, sample_papers, write_reportlab
from tests.conftest import DATA

SCIFACT = DATA / "scifact" / "corpus.jsonl"


class CountingEncoder:
    """Deterministic unit vectors from text hashes; `encoded` lists every text actually encoded."""

    name = "counting"

    def __init__(self) -> None:
        self.encoded: list[str] = []
        self._cache: dict[str, np.ndarray] = {}

    def _vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        return vector / np.linalg.norm(vector)

    def encode(self, texts: list[str], show_progress: bool = False, on_progress=None, bulk: bool = False) -> np.ndarray:
        if on_progress is not None:
            on_progress(len(texts))
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for i, text in enumerate(texts):
            if text not in self._cache:
                self.encoded.append(text)
                self._cache[text] = self._vector(text)
            out[i] = self._cache[text]
        return out

    def prime(self, texts: list[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, vectors):
            self._cache[text] = np.asarray(vector, dtype=np.float32)

    async def embed(self, texts: list[str], *, kind: str = "document") -> np.ndarray:
        return self.encode(texts)


@pytest.fixture
def encoder(monkeypatch) -> CountingEncoder:
    from agent.tools.models import encoder as encoder_module

    fake = CountingEncoder()
    monkeypatch.setattr(encoder_module, "_shared", fake)
    return fake


@pytest.fixture(scope="session")
def papers() -> list[SamplePaper]:
    if not SCIFACT.exists():
        pytest.skip(f"needs the SciFact corpus at {SCIFACT}")
    return sample_papers(SCIFACT, 4)


@pytest.fixture(scope="session")
def pdfs(papers, tmp_path_factory) -> dict[str, Path]:
    """Sample PDFs, typeset once per session: one per paper, a scanned-page variant, an encrypted one."""
    folder = tmp_path_factory.mktemp("pdfs")
    out = {p.key: write_reportlab(p, folder / f"{p.key}.pdf") for p in papers}
    out["scanned"] = write_reportlab(papers[3], folder / "scanned.pdf", scanned_page=True)
    out["encrypted"] = write_reportlab(papers[0], folder / "encrypted.pdf", user_password="secret")
    return out


SMALL_CORPUS = [
    {
        "doc_id": 901,
        "title": "Coral bleaching under ocean warming",
        "abstract": ["Ocean warming drives coral bleaching events across the Pacific."],
    },
    {
        "doc_id": 902,
        "title": "Volcanic ash and aviation",
        "abstract": ["Volcanic ash clouds closed European airspace for six days."],
    },
    {
        "doc_id": 903,
        "title": "Galaxy rotation curves",
        "abstract": ["Flat rotation curves of spiral galaxies imply unseen mass."],
    },
]


@pytest.fixture
def small_default_corpus(tmp_path) -> Path:
    """A three-abstract default corpus (`sparkit config corpus`) in this test's SPARKIT_HOME: the library is searched
    beside the default corpus, and this one indexes in a second where SciFact would take minutes."""
    from agent.backend.corpus import set_config
    from agent.config import sparkit_home

    corpus = tmp_path / "small-corpus.jsonl"
    corpus.write_text("".join(json.dumps(doc) + "\n" for doc in SMALL_CORPUS))
    set_config(sparkit_home(), "corpus", str(corpus))
    return corpus
