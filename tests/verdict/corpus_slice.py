"""A slice of the SciFact corpus for the real-backend verdict tests: the abstracts a case needs and a seeded sample of
others (so that retrieval has something to pass over), written once per test module."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from pathlib import Path

from tests.conftest import DATA

OTHERS = 120  # abstracts sampled beside the ones a case needs


def write_slice(folder: Path, needed: Iterable[int], seed: int) -> tuple[Path, Path]:
    """(the slice's corpus file, the index folder it will be built in)."""
    docs = {}
    with (DATA / "scifact" / "corpus.jsonl").open() as handle:
        for line in handle:
            doc = json.loads(line)
            docs[doc["doc_id"]] = doc
    keep = set(needed) | set(random.Random(seed).sample(sorted(docs), OTHERS))
    path = folder / "corpus.jsonl"
    path.write_text("".join(json.dumps(docs[d]) + "\n" for d in sorted(keep)))
    return path, folder / "index"
