r"""The verdict model's training questions, answered: every labelled question of the benchmarks' training parts
through the public API, one JSON line each (family, source, id, gold label, the whole Answer with its readings).

    python -m evals.verdict_collect --data ../shared/data --out ~/.cache/sparkit-verdict [--families claims,mcq]

Families and what each question is (never a held-out part: benchmarks/splits.py):
- `claims`: SciFact claims_train's `train` and `val` claims (468) over the whole corpus; gold SUPPORT / CONTRADICT /
  NOT_ENOUGH_INFO (a claim with no evidence abstract);
- `mcq`: the two-option questions (evals.scifact_mcq) built from those claims; gold the supported option;
- `pubmedqa`: pqal_dev's even PMIDs, each over its own contexts; gold yes / no / maybe;
- `healthver`: HealthVer dev pairs of the training topics, the claim posed against its own evidence snippet;
- `check_covid`: Check-COVID train claims posed against their own abstract, a supported and a refuted claim of each
  abstract that has both.
A file already holding a question's line is not asked again (rerun the same command to resume). The readings are
what training.fit_verdict fits on; the held-out parts are scored by the usual evals once the model ships.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from agent import Context, aask, averify
from benchmarks.formats import check_covid_jsonl, healthver_csv, read_corpus, read_jsonl
from benchmarks.questions import contrast_pairs, documents_of, gold_of, question_of
from benchmarks.splits import healthver_split, pubmedqa_split, scifact_splits
from benchmarks.verdict_parts import PARTS, kept
from evals.report import context_or_exit
from evals.scifact_mcq import QUESTION

Ask = Callable[[Context], Awaitable[Any]]
FAMILIES = ("claims", "mcq", "pubmedqa", "healthver", "check_covid")
STANCE_GOLD = {"SUPPORT": "SUPPORT", "CONTRADICT": "CONTRADICT", "NEUTRAL": "NOT_ENOUGH_INFO"}


def training_claims(data: Path, parts: tuple[str, ...] = ("train", "val")) -> list[dict]:
    """SciFact claims_train's claims of the given parts of its training split (never the held-out groups)."""
    claims = read_jsonl(data / "scifact" / "claims_train.jsonl")
    splits = scifact_splits(claims)
    return [c for c in claims if splits[c["id"]] in parts and splits[c["id"]] != "heldout"]


def _claims(data: Path, limit: int) -> Iterator[tuple[str, Any, Ask]]:
    # the validation part first: its claims are the ones no reader trained on (the verdict model's own part)
    for claim in (training_claims(data, ("val",)) + training_claims(data, ("train",)))[:limit]:
        yield str(claim["id"]), gold_of(claim)[2], lambda ctx, c=claim: averify(c["claim"], context=ctx)


def _mcq(data: Path, limit: int) -> Iterator[tuple[str, Any, Ask]]:
    for index, (supported, contradicted) in enumerate(contrast_pairs(training_claims(data))[:limit]):
        options, right = question_of(index, supported, contradicted)
        key = f"{supported['id']}-{contradicted['id']}"
        yield key, right, lambda ctx, o=options: aask(QUESTION, options=o, context=ctx)


def _pubmedqa(data: Path, limit: int) -> Iterator[tuple[str, Any, Ask]]:
    items = json.loads((data / "pubmedqa" / "pqal_dev.json").read_text(encoding="utf-8"))
    chosen = [(pmid, item) for pmid, item in items.items() if pubmedqa_split(pmid) != "heldout"][:limit]
    for pmid, item in chosen:
        yield (
            pmid,
            item["final_decision"],
            lambda ctx, p=pmid, i=item: aask(i["QUESTION"], mode="verify", documents=documents_of(p, i), context=ctx),
        )


def _every(items: list, limit: int) -> list:
    """`limit` items spread evenly over the list (the files group pairs by topic or claim)."""
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(k * step)] for k in range(limit)]


def _healthver(data: Path, limit: int) -> Iterator[tuple[str, Any, Ask]]:
    pairs = [
        p for p in healthver_csv(data / "healthver" / "healthver_dev.csv") if healthver_split(int(p.group)) != "heldout"
    ]
    for pair in _every(pairs, limit):
        document = {"id": f"hv{pair.extra['id']}", "title": "", "abstract": pair.passage}
        yield (
            f"{pair.group}_{pair.extra['id']}",  # topic_pair: folds and the verdict model's part go by topic
            STANCE_GOLD[pair.label],
            lambda ctx, p=pair, d=document: averify(p.statement, documents=[d], context=ctx),
        )


def _check_covid(data: Path, limit: int) -> Iterator[tuple[str, Any, Ask]]:
    """Claims of abstracts that have both a supported and a refuted claim, one of each: they are claim questions and,
    paired, the option model's two-option questions over one abstract (training.fit_verdict)."""
    folder = data / "stance" / "check_covid"
    corpus = read_corpus(folder / "corpus.json")
    by_doc: dict[str, dict[str, Any]] = {}
    for pair in check_covid_jsonl(folder / "train" / "covidCheck_train_composed+extracted.json", corpus):
        by_doc.setdefault(pair.extra["doc"], {}).setdefault(pair.label, pair)
    chosen = [
        p
        for labels in by_doc.values()
        if {"SUPPORT", "CONTRADICT"} <= set(labels)
        for p in (labels["SUPPORT"], labels["CONTRADICT"])
    ]
    for pair in chosen[:limit]:  # in pairs
        doc = corpus[pair.extra["doc"]]
        document = {
            "id": f"cc{pair.extra['doc']}",
            "title": doc.get("title") or "",
            "abstract": " ".join(doc["sentences"]),
        }
        yield (
            pair.group,
            STANCE_GOLD[pair.label],
            lambda ctx, p=pair, d=document: averify(p.statement, documents=[d], context=ctx),
        )


SOURCES: dict[str, Callable[[Path, int], Iterator[tuple[str, Any, Ask]]]] = {
    "claims": _claims,
    "mcq": _mcq,
    "pubmedqa": _pubmedqa,
    "healthver": _healthver,
    "check_covid": _check_covid,
}


def done_ids(path: Path) -> set[str]:
    if not path.is_file():
        return set()
    return {json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


async def collect(
    family: str, data: Path, out: Path, context: Context, limit: int, part: str = "all"
) -> tuple[int, int]:
    """Answer the family's questions of the part (benchmarks/verdict_parts.py) not yet in its file; returns (asked,
    failed)."""
    path = out / f"{family}.jsonl"
    done = done_ids(path)
    splits = scifact_splits(read_jsonl(data / "scifact" / "claims_train.jsonl"))
    asked = failed = 0
    with path.open("a", encoding="utf-8") as handle:
        for key, gold, ask in SOURCES[family](data, limit):
            if key in done or not kept(part, family, {"id": key}, splits):
                continue
            started = time.perf_counter()
            try:
                answer = await ask(context)
            except Exception as exc:  # one bad question is that question's error, never the sweep's end
                failed += 1
                line = {"family": family, "id": key, "gold": gold, "error": f"{type(exc).__name__}: {exc}"}
            else:
                line = {
                    "family": family,
                    "id": key,
                    "gold": gold,
                    "seconds": round(time.perf_counter() - started, 3),
                    "answer": answer.model_dump(mode="json"),
                }
            handle.write(json.dumps(line) + "\n")
            handle.flush()
            asked += 1
    return asked, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.verdict_collect", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder (../shared/data)")
    parser.add_argument("--out", type=Path, required=True, help="folder of one JSONL file per family")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--limit", type=int, default=100_000, help="at most this many questions per family")
    parser.add_argument("--preset", default="fast")
    parser.add_argument(
        "--part",
        choices=PARTS,
        default="all",
        help="'unseen': only the questions no reader trained on (the verdict "
        "model's own part, benchmarks/verdict_parts.py)",
    )
    args = parser.parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    unknown = [f for f in families if f not in SOURCES]
    if unknown:
        parser.error(f"unknown families {unknown}: choose from {', '.join(FAMILIES)}")
    args.out.mkdir(parents=True, exist_ok=True)
    corpus = args.data / "scifact" / "corpus.jsonl"
    # the readings are what the model is fitted on: the court's formula decides while they are collected (the routing
    # margin is the formula's either way)
    context = context_or_exit(
        parser, preset=args.preset, corpus_path=str(corpus.resolve()), max_claims=0, verdict_model=False
    )
    failures = 0
    for family in families:
        asked, failed = asyncio.run(collect(family, args.data, args.out, context, args.limit, args.part))
        failures += failed
        print(f"{family}: {asked} answered now, {failed} failed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
