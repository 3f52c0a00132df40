"""The pooled stance training set: every labelled source in ../shared/data as (statement, passage, label) pairs with
a documented label mapping, a weight, a split and the exclusions the data README lists; de-duplicated.

    python -m training.pool                       # counts per source, label and split
    python -m training.pool --write /tmp/pool.jsonl

Splits: `train` trains; `val` selects (epoch, temperature, configuration); `heldout` is scored once and never
trains. The project's held-back test splits (SciFact dev, PubMedQA test, HealthVer test, Check-COVID test,
CliniFact test) are not read at all.

| source | pairs | label mapping | split | weight |
|---|---|---|---|---|
| scifact | claims_train: each rationale sentence and each rationale set (joined); sentences of cited abstracts without
rationale, and BM25-retrieved sentences of abstracts the claim does not cite (hard negatives) -> NEUTRAL | SUPPORT /
CONTRADICT | benchmarks/splits.py scifact_splits (341 held-out claims, validation part) | 1.0 | | healthver | HealthVer
train (MultiVerS format): each rationale set (joined) -> its label; one other sentence of each listed abstract ->
NEUTRAL (HealthVer's own neutral evidence is such sentences) | SUPPORT / CONTRADICT / NEI -> NEUTRAL | train; HealthVer
dev CSV is `val` | 1.0 | | check_covid | claim against its evidence sentences (given for NEI claims too) | SUPPORT /
REFUTE -> CONTRADICT / NOTENOUGHINFO -> NEUTRAL | train file -> train, dev file -> val | 1.0 | | evidence_inference | EI
2.0 prompts (intervention I, comparator C, outcome O) against each valid evidence span; claims written from the prompt:
"I increases O compared with C", "I decreases O ...", "There is no significant difference in O between I and C"; the
claim matching the reported direction -> SUPPORT, one of the other two -> CONTRADICT; the claim of another outcome of
the same trial -> NEUTRAL | significantly increased / decreased / no significant difference | ev2 article split: train /
validation -> val / test -> heldout | 0.7 | | clinifact | templated claim ("X is superior to Y in terms of O") against
the abstract's last 4 sentences (results and conclusion) | 1 TRUE -> SUPPORT, 0 FALSE (negative or inconclusive) ->
CONTRADICT, 2 NONE -> NEUTRAL | train -> train, validation -> val | 0.5 (labels derived from registry p-values: silver)
| | abstrct | target argument (claim) against source argument (premise) in RCT abstracts | Support -> SUPPORT, Attack ->
CONTRADICT, noRel -> NEUTRAL (at most 1 per claim) | neoplasm test -> heldout, the rest train | 0.5 | | covidfact |
claim against its evidence sentences (joined) | SUPPORTED -> SUPPORT, REFUTED -> CONTRADICT | train | 0.3 (refuted
claims are machine word-swaps) | | nli4ct | statement against the evidence lines of the trial section(s) | Entailment ->
SUPPORT, Contradiction -> CONTRADICT | 2023 train -> train, dev -> val | 0.3 (trial reports, not abstracts) | |
climate_fever | claim against each Wikipedia evidence sentence | SUPPORTS / REFUTES / NOT_ENOUGH_INFO | heldout only
(out-of-domain check) | - | | negated | SciFact / HealthVer / Check-COVID training pairs with the claim negated ("does
not"), label flipped (SUPPORT <-> CONTRADICT; a refuted claim is only flipped by negation) | flipped | train | 0.5 |

Exclusions (../shared/data/stance/README.md): HealthVer train claims 234 (a HealthVer test claim) and 988 (a dev
claim); Check-COVID's 54 claims on the 11 abstracts shared with HealthVer test (strict); COVID-Fact's 9 lines
sharing text with HealthVer test (strict); the CliniFact validation row of PMID 23532866 (a SciFact dev abstract).
De-duplication: pairs with the same normalised statement and passage are kept once (the first source in table
order wins; a pair whose copies disagree on the label is dropped everywhere); a training pair whose statement
is also a `val` or `heldout` statement is dropped.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
import sys
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

from agent.records import Stance
from benchmarks.formats import check_covid_jsonl, healthver_csv, read_corpus
from training.dataset import StancePair, default_data_dir, load_scifact, negation_augment, scifact_pairs

STANCE_DIR = "stance"
HEALTHVER_EXCLUDED = frozenset({234, 988})
CHECK_COVID_STRICT = frozenset(
    "dlpgq0rm xl07uq0s mo4luyx6 qi1henyy 8ul1rplx 5o9bbspc 53j3ly3v k36rymkv q8l3ra55 i0ijbt7i apj6hgzw".split()
)
COVIDFACT_STRICT_LINES = frozenset({1845, 1846, 1847, 1848, 1909, 1910, 3968, 3969, 3970})
CLINIFACT_EXCLUDED_PMIDS = frozenset({"23532866"})
WEIGHTS = {
    "scifact": 1.0,
    "healthver": 1.0,
    "check_covid": 1.0,
    "evidence_inference": 0.7,
    "clinifact": 0.5,
    "abstrct": 0.5,
    "covidfact": 0.3,
    "nli4ct": 0.3,
    "climate_fever": 0.0,
    "negated": 0.5,
}
_SPACE = re.compile(r"\s+")


def _stable(*parts: object) -> int:
    """A deterministic hash (Python's hash() is salted per process)."""
    return int(hashlib.sha1("\x1f".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def _pair(statement: str, passage: str, label: Stance, kind: str, group: str, split: str, source: str) -> StancePair:
    return StancePair(
        _SPACE.sub(" ", statement).strip(),
        _SPACE.sub(" ", passage).strip(),
        label,
        kind,
        group,
        split,
        source,
        WEIGHTS[source],
    )


# ------------------------------------------------------------------------------------------------ sources
def scifact_source(data: Path) -> list[StancePair]:
    """SciFact claims_train (training/dataset.py pairs) minus the non-rationale sentences of evidence abstracts (their
    label is the annotators' choice of rationale, not the abstract's stance), plus each multi-sentence rationale set."""
    corpus, claims = load_scifact(data)
    evidence = {(c["claim"], s) for c in claims for doc in c["evidence"] for s in corpus[int(doc)]["abstract"]}
    pairs = [
        replace(p, source="scifact", weight=WEIGHTS["scifact"])
        for p in scifact_pairs(data)
        if p.kind in ("rationale", "cited", "retrieved")
        and not (p.kind == "cited" and (p.statement, p.passage) in evidence)
    ]
    by_id = {c["id"]: c for c in claims}
    splits = {p.group: p.split for p in pairs}
    for claim_id, claim in by_id.items():
        for doc, rationales in claim["evidence"].items():
            for rationale in rationales:
                if len(rationale["sentences"]) > 1 and str(claim_id) in splits:
                    text = " ".join(corpus[int(doc)]["abstract"][i] for i in sorted(rationale["sentences"]))
                    pairs.append(
                        _pair(
                            claim["claim"],
                            text,
                            rationale["label"],
                            "rationale_set",
                            str(claim_id),
                            splits[str(claim_id)],
                            "scifact",
                        )
                    )
    return pairs


def healthver_source(data: Path) -> list[StancePair]:
    """HealthVer train from the MultiVerS-format copy (train) and the HealthVer dev CSV (val)."""
    folder = data / STANCE_DIR / "healthver_multivers"
    corpus = read_corpus(folder / "corpus.jsonl")
    pairs: list[StancePair] = []
    for line in (folder / "claims_train.jsonl").read_text(encoding="utf-8").splitlines():
        claim = json.loads(line)
        if claim["id"] in HEALTHVER_EXCLUDED:
            continue
        text, group = claim["claim"], f"hv{claim['id']}"
        for doc_id in [str(d) for d in claim["doc_ids"]]:
            sentences = corpus[doc_id]["sentences"]
            used: set[int] = set()
            for rationale in claim["evidence"].get(doc_id, []):
                indices = sorted(i for i in rationale["sentences"] if i < len(sentences))
                used.update(indices)
                if indices:
                    label: Stance = "SUPPORT" if rationale["label"] == "SUPPORT" else "CONTRADICT"
                    pairs.append(
                        _pair(
                            text,
                            " ".join(sentences[i] for i in indices),
                            label,
                            "rationale",
                            group,
                            "train",
                            "healthver",
                        )
                    )
            others = [i for i in range(len(sentences)) if i not in used and sentences[i]]
            for i in sorted(others, key=lambda i: _stable(group, doc_id, i))[:1]:
                pairs.append(_pair(text, sentences[i], "NEUTRAL", "sentence", group, "train", "healthver"))
    pairs += [
        _pair(p.statement, p.passage, p.label, "evidence", f"hvdev{p.group}", "val", "healthver")
        for p in healthver_csv(data / "healthver" / "healthver_dev.csv")
    ]
    return pairs


def check_covid_source(data: Path) -> list[StancePair]:
    folder = data / STANCE_DIR / "check_covid"
    corpus = read_corpus(folder / "corpus.json", "cord_id")
    pairs = []
    for split, path in (
        ("train", folder / "train" / "covidCheck_train_composed+extracted.json"),
        ("val", folder / "dev" / "covidCheck_dev_composed+extracted.json"),
    ):
        pairs += [
            _pair(p.statement, p.passage, p.label, "evidence", f"cc{p.group}", split, "check_covid")
            for p in check_covid_jsonl(path, corpus, skip_docs=CHECK_COVID_STRICT)
        ]
    return pairs


_EI_DIRECTION = {
    "significantly increased": "increase",
    "significantly increase": "increase",
    "significantly decreased": "decrease",
    "no significant difference": "none",
}


def ei_claim(direction: str, intervention: str, comparator: str, outcome: str) -> str:
    """The claim a trial result of this direction asserts, written from the prompt."""
    if direction == "none":
        return f"There is no significant difference in {outcome} between {intervention} and {comparator}"
    verb = "increases" if direction == "increase" else "decreases"
    return f"{intervention} {verb} {outcome} compared with {comparator}"


def _ei_splits(folder: Path) -> dict[str, str]:
    splits = {}
    for name, split in (
        ("ev2_train_article_ids.txt", "train"),
        ("ev2_validation_article_ids.txt", "val"),
        ("ev2_test_article_ids.txt", "heldout"),
    ):
        for line in (folder / "splits" / name).read_text().split():
            splits[line.strip()] = split
    return splits


def evidence_inference_source(data: Path) -> list[StancePair]:
    folder = data / STANCE_DIR / "evidence_inference" / "annotations"
    csv.field_size_limit(sys.maxsize)
    with (folder / "prompts_merged.csv").open(encoding="utf-8", newline="") as handle:
        prompts = {row["PromptID"]: row for row in csv.DictReader(handle)}
    splits = _ei_splits(folder)
    spans: dict[str, dict[str, str]] = defaultdict(dict)  # prompt -> evidence span -> direction
    with (folder / "v2_annotations.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            direction = _EI_DIRECTION.get(row["Label"].strip().lower())
            span = _SPACE.sub(" ", row["Annotations"] or "").strip()
            if (
                row["Valid Label"] == "True"
                and row["Valid Reasoning"] == "True"
                and direction
                and len(span) >= 20
                and row["PromptID"] in prompts
            ):
                spans[row["PromptID"]].setdefault(span, direction)
    by_article: dict[str, list[str]] = defaultdict(list)
    for prompt_id in spans:
        by_article[prompts[prompt_id]["PMCID"]].append(prompt_id)
    pairs = []
    for prompt_id, evidence in spans.items():
        prompt = prompts[prompt_id]
        parts = [prompt["Intervention"].strip(), prompt["Comparator"].strip(), prompt["Outcome"].strip()]
        if not all(parts):
            continue
        split, group = splits.get(prompt["PMCID"], "train"), f"ei{prompt['PMCID']}"
        for span, direction in evidence.items():
            others = [d for d in ("increase", "decrease", "none") if d != direction]
            pairs.append(
                _pair(ei_claim(direction, *parts), span, "SUPPORT", "ei_match", group, split, "evidence_inference")
            )
            pairs.append(
                _pair(
                    ei_claim(others[_stable(prompt_id, span) % 2], *parts),
                    span,
                    "CONTRADICT",
                    "ei_opposite",
                    group,
                    split,
                    "evidence_inference",
                )
            )
            siblings = [
                p for p in by_article[prompt["PMCID"]] if prompts[p]["Outcome"].strip().lower() != parts[2].lower()
            ]
            if siblings:  # the claim about another outcome of the same trial says nothing about this span
                other = prompts[siblings[_stable(prompt_id, span, "n") % len(siblings)]]
                other_parts = [other["Intervention"].strip(), other["Comparator"].strip(), other["Outcome"].strip()]
                if all(other_parts):
                    claim = ei_claim(("increase", "decrease", "none")[_stable(span) % 3], *other_parts)
                    pairs.append(_pair(claim, span, "NEUTRAL", "ei_other_outcome", group, split, "evidence_inference"))
    return pairs


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


def clinifact_source(data: Path) -> list[StancePair]:
    from benchmarks.formats import clinifact_csv

    folder = data / STANCE_DIR / "clinifact"
    pairs = []
    for split, name in (("train", "train_set.csv"), ("val", "validation_set.csv")):
        for p in clinifact_csv(folder / name, skip_pmids=CLINIFACT_EXCLUDED_PMIDS):
            tail = " ".join(_SENTENCE_END.split(p.extra["abstract"])[-4:])
            pairs.append(_pair(p.statement, tail, p.label, "abstract_tail", f"cf{p.extra['pmid']}", split, "clinifact"))
    return pairs


def abstrct_source(data: Path) -> list[StancePair]:
    folder = data / STANCE_DIR / "abstrct_relations" / "EN" / "argument_relations"
    mapping: dict[str, Stance] = {"Support": "SUPPORT", "Attack": "CONTRADICT", "noRel": "NEUTRAL"}
    pairs = []
    for path in sorted(folder.glob("*/*_relations.tsv")):
        split = "heldout" if path.parent.name == "neoplasm" and path.name.startswith("test") else "train"
        neutrals: Counter[str] = Counter()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            fields = line.split("\t")
            if len(fields) != 3:
                continue
            label = mapping.get(fields[0].removeprefix("__label__"))
            premise, claim = fields[1], fields[2]
            if label is None or (label == "NEUTRAL" and (neutrals[claim] >= 1 or _stable(path.name, number) % 3)):
                continue
            neutrals[claim] += label == "NEUTRAL"
            pairs.append(
                _pair(
                    claim,
                    premise,
                    label,
                    "argument",
                    f"ab{path.parent.name}:{_stable(claim) % 10**8}",
                    split,
                    "abstrct",
                )
            )
    return pairs


def covidfact_source(data: Path) -> list[StancePair]:
    mapping: dict[str, Stance] = {"SUPPORTED": "SUPPORT", "REFUTED": "CONTRADICT"}
    pairs = []
    lines = (data / STANCE_DIR / "covidfact" / "COVIDFACT_dataset.jsonl").read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        if number in COVIDFACT_STRICT_LINES or not line.strip():
            continue
        item = json.loads(line)
        evidence = " ".join(item.get("evidence") or [])
        if item["label"] in mapping and evidence:
            pairs.append(
                _pair(
                    item["claim"], evidence, mapping[item["label"]], "evidence", f"cfact{number}", "train", "covidfact"
                )
            )
    return pairs


def nli4ct_source(data: Path) -> list[StancePair]:
    mapping: dict[str, Stance] = {"Entailment": "SUPPORT", "Contradiction": "CONTRADICT"}
    pairs = []
    with zipfile.ZipFile(data / STANCE_DIR / "nli4ct" / "semeval2023" / "Complete_dataset.zip") as archive:
        names = {Path(n).name: n for n in archive.namelist() if not n.startswith("__MACOSX")}

        def section(trial: str, name: str, indices: list[int]) -> str:
            lines = json.loads(archive.read(names[f"{trial}.json"]))[name]
            return " ".join(lines[i].strip() for i in indices if i < len(lines))

        for split, file in (("train", "train.json"), ("val", "dev.json")):
            for item in json.loads(archive.read(names[file])).values():
                label = mapping.get(item.get("Label", ""))
                if label is None:
                    continue
                premise = section(item["Primary_id"], item["Section_id"], item["Primary_evidence_index"])
                if item.get("Secondary_id"):
                    premise = (
                        f"Primary trial: {premise} Secondary trial: "
                        f"{section(item['Secondary_id'], item['Section_id'], item['Secondary_evidence_index'])}"
                    )
                pairs.append(
                    _pair(
                        item["Statement"], premise, label, "trial_section", f"nli{item['Primary_id']}", split, "nli4ct"
                    )
                )
    return pairs


def climate_fever_source(data: Path) -> list[StancePair]:
    mapping: dict[str, Stance] = {"SUPPORTS": "SUPPORT", "REFUTES": "CONTRADICT", "NOT_ENOUGH_INFO": "NEUTRAL"}
    pairs = []
    for line in (data / STANCE_DIR / "climate_fever" / "climate-fever.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        for evidence in item["evidences"]:
            pairs.append(
                _pair(
                    item["claim"],
                    evidence["evidence"],
                    mapping[evidence["evidence_label"]],
                    "wikipedia",
                    f"clim{item['claim_id']}",
                    "heldout",
                    "climate_fever",
                )
            )
    return pairs


SOURCES: dict[str, Callable[[Path], list[StancePair]]] = {
    "scifact": scifact_source,
    "healthver": healthver_source,
    "check_covid": check_covid_source,
    "evidence_inference": evidence_inference_source,
    "clinifact": clinifact_source,
    "abstrct": abstrct_source,
    "covidfact": covidfact_source,
    "nli4ct": nli4ct_source,
    "climate_fever": climate_fever_source,
}


# ------------------------------------------------------------------------------------------------ pooling
def _key(text: str) -> str:
    return _SPACE.sub(" ", text.lower()).strip(" .")


def deduplicate(pairs: list[StancePair]) -> tuple[list[StancePair], dict[str, int]]:
    """Each (statement, passage) once, the first copy kept; pairs whose copies disagree dropped; training pairs
    whose statement is also an evaluation statement dropped. Returns the pairs and what was removed."""
    labels: dict[tuple[str, str], set[str]] = defaultdict(set)
    for p in pairs:
        labels[(_key(p.statement), _key(p.passage))].add(p.label)
    evaluated = {_key(p.statement) for p in pairs if p.split != "train"}
    kept, seen = [], set()
    removed = Counter()
    for p in pairs:
        key = (_key(p.statement), _key(p.passage))
        if len(labels[key]) > 1:
            removed["conflicting label"] += 1
        elif key in seen:
            removed["duplicate"] += 1
        elif p.split == "train" and key[0] in evaluated:
            removed["statement also evaluated"] += 1
        else:
            seen.add(key)
            kept.append(p)
    return kept, dict(removed)


def build_pool(
    data: Path | None = None, sources: list[str] | None = None, negations: bool = True
) -> tuple[list[StancePair], dict[str, int]]:
    """The de-duplicated pool of the named sources (all by default), with negation-augmented training copies."""
    data = data or default_data_dir()
    pairs: list[StancePair] = []
    for name in sources or list(SOURCES):
        pairs += SOURCES[name](data)
    if negations:
        eligible = [
            replace(p, kind="rationale") if p.source != "scifact" else p
            for p in pairs
            if p.split == "train" and p.source in ("scifact", "healthver", "check_covid")
        ]
        pairs += [
            replace(p, source="negated", weight=WEIGHTS["negated"])
            for p in negation_augment(eligible, neutral_per_claim=1)
        ]
    return deduplicate(pairs)


def summary(pairs: list[StancePair]) -> list[tuple[str, str, int, int, int]]:
    """(source, split, SUPPORT, CONTRADICT, NEUTRAL) counts."""
    counts = Counter((p.source, p.split, p.label) for p in pairs)
    keys = sorted({(s, sp) for s, sp, _ in counts})
    return [
        (s, sp, counts[(s, sp, "SUPPORT")], counts[(s, sp, "CONTRADICT")], counts[(s, sp, "NEUTRAL")]) for s, sp in keys
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.pool", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=default_data_dir())
    parser.add_argument("--sources", help="comma-separated subset of: " + ", ".join(SOURCES))
    parser.add_argument("--write", type=Path, help="write the pool as JSON lines")
    args = parser.parse_args(argv)
    pairs, removed = build_pool(args.data_dir, args.sources.split(",") if args.sources else None)
    print(f"{'source':<20}{'split':<9}{'SUPPORT':>9}{'CONTRA':>9}{'NEUTRAL':>9}")
    for row in summary(pairs):
        print(f"{row[0]:<20}{row[1]:<9}{row[2]:>9}{row[3]:>9}{row[4]:>9}")
    print(f"total {len(pairs)} pairs; removed {removed}")
    if args.write:
        with args.write.open("w", encoding="utf-8") as handle:
            for p in pairs:
                handle.write(json.dumps(asdict(p)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
