r"""Where the readers read a finding's direction wrong, by category (issue 50, item 4): negations, antonyms, numbers.

    python -m training.direction_categories --pool-file ~/.cache/sparkit-train/pool.jsonl.gz [--limit 1500] \
        [--out evals/data/direction_categories.json]

On the pool's validation pairs that take a side (training/pool.py `val`: SciFact, HealthVer, Check-COVID, CliniFact,
COVID-Fact, Evidence Inference; never a held-out pair), each pair is put in every category it belongs to:

- `claim_negated` / `evidence_negated`: a negation in the claim / in the evidence (not, no, without, fails, ...);
- `antonym`: the claim has a direction word and the evidence its opposite (better / poorer, increase / decrease,
  higher / lower, promote / inhibit, activate / suppress, risk / protective, ...), the claim's own word absent;
- `quantity`: the claim names a value and the evidence states only others (agent/scoring/claimed_quantity.py);
- `other`: none of these.

For each: the count, always-SUPPORT's accuracy, and the accuracy of the default judge's side (its SUPPORT against
CONTRADICT) and of each of its readers. Writes the table as JSON with `--out`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np

from agent.api import stance_judge
from agent.judges.breakdown import reader_rows
from agent.scoring.claimed_quantity import quantity_reading
from training.dataset import StancePair, default_data_dir

NEGATION = re.compile(r"\b(not|no|never|without|cannot|neither|nor|fails?|failed|lack(?:s|ed)?|absence)\b|n't\b", re.I)
OPPOSITES = [
    ("better", "worse|poorer|poor"),
    ("worse|poorer|poor", "better|improved"),
    (
        "increase[sd]?|increasing|rise|rises|elevated|raised",
        "decrease[sd]?|decreasing|reduce[sd]?|reduction|lower(?:ed)?",
    ),
    ("decrease[sd]?|decreasing|reduce[sd]?|reduction|lower(?:s|ed)?", "increase[sd]?|increasing|elevated|higher"),
    ("higher|greater|more", "lower|smaller|less|fewer"),
    ("lower|smaller|less|fewer", "higher|greater|more"),
    (
        "promote[sd]?|promoting|activate[sd]?|activating|induce[sd]?|enhance[sd]?",
        "inhibit(?:s|ed)?|suppress(?:es|ed)?|block(?:s|ed)?|impair(?:s|ed)?",
    ),
    ("inhibit(?:s|ed)?|suppress(?:es|ed)?|block(?:s|ed)?", "promote[sd]?|activate[sd]?|induce[sd]?|enhance[sd]?"),
    ("risk", "protective|protects?|protection"),
    ("protective|protects?|protection", "risk"),
    (
        "improve[sd]?|improving|benefit(?:s|ed)?|beneficial",
        "worsen(?:s|ed)?|harm(?:s|ed|ful)?|impair(?:s|ed)?|poor(?:er)?|worse",
    ),
    ("positive(?:ly)?", "negative(?:ly)?|inverse(?:ly)?"),
    ("negative(?:ly)?|inverse(?:ly)?", "positive(?:ly)?"),
    ("up-?regulate[sd]?", "down-?regulate[sd]?"),
    ("down-?regulate[sd]?", "up-?regulate[sd]?"),
]
_OPPOSITES = [(re.compile(rf"\b(?:{a})\b", re.I), re.compile(rf"\b(?:{b})\b", re.I)) for a, b in OPPOSITES]
CATEGORIES = ("claim_negated", "evidence_negated", "antonym", "quantity", "other")


def categories(claim: str, evidence: str) -> list[str]:
    """Every category of the module docstring that the pair belongs to ('other' when none)."""
    found = []
    if NEGATION.search(claim):
        found.append("claim_negated")
    if NEGATION.search(evidence):
        found.append("evidence_negated")
    if any(a.search(claim) and b.search(evidence) and not a.search(evidence) for a, b in _OPPOSITES):
        found.append("antonym")
    if quantity_reading(claim, [evidence])["quantity_other"]:
        found.append("quantity")
    return found or ["other"]


def table(pairs: list[StancePair], sides: dict[str, np.ndarray]) -> dict[str, Any]:
    """Count, always-SUPPORT and each reader's direction accuracy per category (and over all pairs)."""
    gold = np.asarray([p.label == "SUPPORT" for p in pairs])
    member = [categories(p.statement, p.passage) for p in pairs]
    out: dict[str, Any] = {}
    for category in ("all", *CATEGORIES):
        mask = np.asarray([category == "all" or category in m for m in member])
        if not mask.any():
            continue
        out[category] = {
            "pairs": int(mask.sum()),
            "always_support": round(float(gold[mask].mean()), 4),
            **{name: round(float((side[mask] == gold[mask]).mean()), 4) for name, side in sides.items()},
        }
    return out


async def read_sides(pairs: list[StancePair]) -> dict[str, np.ndarray]:
    """Each reader's side (True: SUPPORT over CONTRADICT) and the default judge's, for every pair."""
    judge = stance_judge()
    texts = [(p.statement, p.passage) for p in pairs]
    judged = await judge.judge(texts)
    sides = {"judge": np.asarray([r.probabilities["SUPPORT"] >= r.probabilities["CONTRADICT"] for r in judged])}
    for name, rows in (await reader_rows(judge, texts)).items():
        sides[name] = rows[:, 0] >= rows[:, 1]
    return sides


def main(argv: list[str] | None = None) -> int:
    from training.pool import build_pool
    from training.train_judge import read_pool, write_pool

    parser = argparse.ArgumentParser(
        prog="python -m training.direction_categories", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--data-dir", type=Path, default=default_data_dir())
    parser.add_argument("--pool-file", type=Path, help="the pool (written here on the first run, read after)")
    parser.add_argument("--limit", type=int, default=0, help="a random sample of this many pairs (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.pool_file and args.pool_file.exists():
        pool, _ = read_pool(args.pool_file)
    else:
        pool, removed = build_pool(args.data_dir, ["scifact", "healthver", "check_covid", "clinifact", "covidfact"])
        if args.pool_file:
            write_pool(args.pool_file, pool, removed)
    pairs = [p for p in pool if p.split == "val" and p.label in ("SUPPORT", "CONTRADICT") and p.source != "negated"]
    if args.limit and len(pairs) > args.limit:
        pairs = random.Random(args.seed).sample(pairs, args.limit)
    result = table(pairs, asyncio.run(read_sides(pairs)))
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
