"""The fixed hold-out rules: which claims and questions the judges train on, tune on, and are scored on.

- SciFact: claims are linked when they share a cited or evidence document (negated twin claims share their
  evidence). Every claim of a linked group that contains a claim with `id % 5 == 0` is held out (341 of 809
  claims), so no held-out claim's abstract was seen in training and every `id % 5 == 0` claim is unseen.
- HealthVer: pairs whose `topic_ip % 5 == 0`.
- PubMedQA: questions with an odd PMID (246 of 500). `evals.pubmedqa --split heldout` scores exactly these.
- Inside the training part, an internal validation part for model selection: SciFact groups whose smallest
  claim id has `id % 5 == 1`, HealthVer topics with `topic_ip % 5 == 1`, PubMedQA even PMIDs with
  `(pmid // 2) % 5 == 0`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

Split = Literal["train", "val", "heldout"]


def claim_docs(claim: dict) -> list[int]:
    """A SciFact claim's cited and evidence documents, in order, once each."""
    return list(dict.fromkeys([int(d) for d in claim["cited_doc_ids"]] + [int(d) for d in claim["evidence"]]))


def scifact_groups(claims: list[dict]) -> dict[int, int]:
    """Each claim id -> its linked group (the smallest claim id of the group): claims that share a cited or evidence
    document, directly or through other claims. Cross-validation folds are made of whole groups."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(node: tuple[str, int]) -> tuple[str, int]:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for claim in claims:
        root = find(("claim", claim["id"]))
        for doc in claim_docs(claim):
            parent[find(("doc", doc))] = root
            root = find(root)
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for claim in claims:
        groups[find(("claim", claim["id"]))].append(claim["id"])
    return {i: min(ids) for ids in groups.values() for i in ids}


def scifact_splits(claims: list[dict]) -> dict[int, Split]:
    """Split of every claim id by the linked-group rule in the module docstring."""
    members: dict[int, list[int]] = defaultdict(list)
    for claim_id, group in scifact_groups(claims).items():
        members[group].append(claim_id)
    splits: dict[int, Split] = {}
    for ids in members.values():
        split: Split = "heldout" if any(i % 5 == 0 for i in ids) else "val" if min(ids) % 5 == 1 else "train"
        for i in ids:
            splits[i] = split
    return splits


def healthver_split(topic: int) -> Split:
    """The split of one HealthVer topic by the rule in the module docstring."""
    return "heldout" if topic % 5 == 0 else "val" if topic % 5 == 1 else "train"


def pubmedqa_split(pmid: str | int) -> Split:
    """The split of one PubMedQA question by the rule in the module docstring (odd PMIDs are held out)."""
    number = int(pmid)
    return "heldout" if number % 2 else "val" if (number // 2) % 5 == 0 else "train"
