"""General NLI pairs (../shared/data/nli) as stance pairs for a warm-up stage before the biomedical pool.

    python -m training.nli            # counts per source, label and split

Only the sets whose licence allows a commercially usable judge train: MNLI (dev-matched, 1,000 of it held out by a
stable hash as `val`), SNLI, the counterfactually-augmented SNLI (minimal pairs: one edit flips the label) and SciNLI's
entailment / neutral pairs at a low weight (its "reasoning" and "contrasting" are discourse relations, not logic).
ANLI (CC BY-NC 4.0) and SICK (CC BY-NC-SA 3.0) are left out. FEVER-symmetric is `val` only: each claim is paired
with evidence for both labels, so it measures whether a judge reads the evidence rather than the claim's wording.
The premise is the passage and the hypothesis the statement, as the judge reads (claim, evidence) at run time.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
from collections import Counter
from pathlib import Path

from training.dataset import StancePair, default_data_dir

LABELS = {
    "entailment": "SUPPORT",
    "contradiction": "CONTRADICT",
    "neutral": "NEUTRAL",
    "supports": "SUPPORT",
    "refutes": "CONTRADICT",
}
# (folder, file, split, weight); SciNLI keeps only entailment / neutral (see the module docstring)
FILES = (
    ("mnli", "dev_matched", "train", 1.0),
    ("snli", "dev", "train", 0.7),
    ("snli_cad", "train", "train", 1.0),
    ("scinli", "dev", "train", 0.3),
    ("fever_symmetric", "dev", "val", 1.0),
)
MNLI_VAL = 1000  # MNLI pairs held out for the stage's own validation
SCINLI_KEPT = frozenset({"entailment", "neutral"})


def _held_out(pair_id: str) -> bool:
    """A stable ~10 % of MNLI by id hash (1,000 of 9,815 on average)."""
    return int(hashlib.sha256(pair_id.encode()).hexdigest()[:8], 16) % 10 == 0


def _rows(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def load_nli(data_dir: Path | None = None) -> list[StancePair]:
    """Every usable pair of the NLI folder, with split and weight (module docstring)."""
    root = (data_dir or default_data_dir()) / "nli"
    if not root.is_dir():
        raise SystemExit(f"no NLI data at {root} (the general pairs the warm-up stage trains on)")
    pairs: list[StancePair] = []
    for folder, name, split, weight in FILES:
        for row in _rows(root / folder / f"{name}.jsonl.gz"):
            raw = str(row["label"]).lower()
            if folder == "scinli" and raw not in SCINLI_KEPT:
                continue
            label = LABELS.get(raw)
            if label is None:
                raise SystemExit(f"{folder}/{name}: unknown label {row['label']!r}")
            row_split = "val" if folder == "mnli" and _held_out(str(row["id"])) else split
            pairs.append(
                StancePair(
                    statement=row["hypothesis"],
                    passage=row["premise"],
                    label=label,
                    kind=folder,  # type: ignore[arg-type]
                    group=f"{folder}:{row['id']}",
                    split=row_split,
                    source=f"nli_{folder}",
                    weight=weight,
                )
            )  # type: ignore[arg-type]
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.nli", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=default_data_dir())
    args = parser.parse_args(argv)
    counts = Counter((p.source, p.split, p.label) for p in load_nli(args.data_dir))
    for (source, split, label), n in sorted(counts.items()):
        print(f"{source:<22}{split:<7}{label:<12}{n:>7}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
