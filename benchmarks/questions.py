"""How the evals and the fits read a benchmark's questions: SciFact claims of a split and their gold labels,
a PubMedQA question's contexts as the documents the product is given, and the off-topic set with its one-record
aspirin corpus."""

from __future__ import annotations

from pathlib import Path

from benchmarks.formats import read_jsonl
from benchmarks.splits import scifact_splits


def gold_of(claim: dict) -> tuple[dict[str, str], dict[str, set[int]], str]:
    """Gold doc labels, gold rationale sentences per doc, and the claim-level label."""
    labels, sentences = {}, {}
    for doc, sets in (claim.get("evidence") or {}).items():
        labels[str(doc)] = sets[0]["label"]
        sentences[str(doc)] = {i for s in sets for i in s["sentences"]}
    claim_label = next(iter(labels.values())) if labels else "NOT_ENOUGH_INFO"
    return labels, sentences, claim_label


def load_claims(path: Path, split: str, limit: int | None = None) -> list[dict]:
    """Claims of one split (claims_train's fixed hold-out, validation part, or all), first `limit` of them."""
    claims = read_jsonl(path)
    if split != "all" and any("evidence" in c for c in claims):
        splits = scifact_splits(claims)
        claims = [c for c in claims if splits.get(c["id"]) == split]
    return claims[:limit] if limit else claims


def contrast_pairs(claims: list[dict]) -> list[tuple[dict, dict]]:
    """(supported claim, contradicted claim) for every abstract that has both, each pair once, in claim-id order."""
    by_doc: dict[str, dict[str, list[dict]]] = {}
    for claim in claims:
        for doc, sets in (claim.get("evidence") or {}).items():
            by_doc.setdefault(str(doc), {}).setdefault(sets[0]["label"], []).append(claim)
    pairs = {
        (s["id"], c["id"]): (s, c)
        for labels in by_doc.values()
        for s in labels.get("SUPPORT", [])
        for c in labels.get("CONTRADICT", [])
    }
    return [pairs[key] for key in sorted(pairs)]


def question_of(index: int, supported: dict, contradicted: dict) -> tuple[list[str], int]:
    """The two options and the right one's index; the supported claim comes first on even pairs."""
    if index % 2 == 0:
        return [supported["claim"], contradicted["claim"]], 0
    return [contradicted["claim"], supported["claim"]], 1


def documents_of(pmid: str, item: dict) -> list[dict]:
    """The question's contexts as what they are: one abstract (its conclusion removed), each section's first
    sentence carrying its structured-abstract label ("RESULTS: ..."), so the court weighs sections as it does
    for any structured abstract. The title is left out: PubMedQA questions are mostly the paper's title."""
    labels = item.get("LABELS") or []
    sections = [
        f"{labels[i].upper()}: {text}" if i < len(labels) and labels[i] else text
        for i, text in enumerate(item["CONTEXTS"])
    ]
    return [{"id": pmid, "title": "", "abstract": " ".join(sections)}]


OFF_TOPIC = Path(__file__).resolve().parents[1] / "evals" / "data" / "off_topic.jsonl"
ASPIRIN = [
    {
        "id": "aspirin-1",
        "title": "Aspirin and colorectal cancer risk",
        "abstract": "Regular aspirin use reduces the long-term risk of colorectal cancer. "
        "In five randomised trials, aspirin at 75 mg daily lowered the 20-year incidence of colon cancer by 24% "
        "(HR 0.76, 95% CI 0.60-0.96).",
    }
]


def load_off_topic(path: Path = OFF_TOPIC) -> list[dict]:
    """The off-topic questions (evals/data/off_topic.jsonl): what the corpus cannot answer, each marked `fit` or
    `heldout`."""
    return read_jsonl(path)
