"""Which collected questions the verdict model may learn from: stacking done right.

The verdict model weighs what the readers read. On a question a reader was trained on, its reading is better than it
will be on a new question, so a verdict model fitted on such readings learns to trust the readers too much (fitted on
SciFact's train + validation claims at stop 43, it answered 30 % of claims at precision 0.865 out of fold and 20 % at
0.757 held out). `--part unseen` (training/fit_verdict.py, evals/verdict_collect.py) fits it only on questions no
reader trained on:

- SciFact: the validation claims (benchmarks/splits.py); the judges and the evidence reader train on the `train`
  part;
- PubMedQA even PMIDs: no reader trains on PubMedQA;
- HealthVer: the validation topics (`topic_ip % 5 == 1`); the cross-encoder trains on the other training topics;
- Check-COVID train claims: left out (the direction reader's pool trains on that file);
- the option model's pairs: both claims from the validation part.

`--part all` keeps every collected question (the fit as shipped until then), for the comparison.
"""

from __future__ import annotations

from typing import Any

from benchmarks.splits import Split

PARTS = ("all", "unseen")


def reader_unseen(family: str, line: dict[str, Any], scifact_split: dict[int, Split]) -> bool:
    """Whether no shipped reader was trained on this collected question (module docstring)."""
    if family == "claims":
        return scifact_split.get(int(line["id"])) == "val"
    if family == "pubmedqa":
        return True
    if family == "healthver":
        topic = str(line.get("topic") or line["id"]).split("_")[0]
        return topic.isdigit() and int(topic) % 5 == 1
    return False


def kept(part: str, family: str, line: dict[str, Any], scifact_split: dict[int, Split]) -> bool:
    if part not in PARTS:
        raise ValueError(f"part {part!r}: expected one of {', '.join(PARTS)}")
    return part == "all" or reader_unseen(family, line, scifact_split)
