"""The labelled-file readers shared by evals.stance and the training pool, on small slices of the real files."""

from __future__ import annotations

import json

import pytest

from benchmarks.formats import FormatError, detect_format, read_pairs
from tests.conftest import DATA

STANCE = DATA / "stance"
pytestmark = pytest.mark.skipif(not (STANCE / "check_covid").exists(), reason="../shared/data/stance not present")


def head(src, dst, lines: int):
    dst.write_text("".join(src.open(encoding="utf-8").readlines()[:lines]), encoding="utf-8")
    return dst


def test_healthver_csv_slice(tmp_path):
    import csv

    rows = list(csv.DictReader((DATA / "healthver" / "healthver_dev.csv").open(encoding="utf-8", newline="")))[:30]
    path = tmp_path / "hv.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    fmt, pairs = read_pairs(path)
    assert fmt == "healthver_csv"
    assert len(pairs) == 30
    mapping = {"Supports": "SUPPORT", "Refutes": "CONTRADICT", "Neutral": "NEUTRAL"}
    assert [p.label for p in pairs] == [mapping[r["label"]] for r in rows]
    assert pairs[0].statement == rows[0]["claim"].strip() and pairs[0].passage == rows[0]["evidence"].strip()


def test_clinifact_csv_maps_true_false_none(tmp_path):
    import csv

    src = STANCE / "clinifact" / "validation_set.csv"
    csv.field_size_limit(10**9)
    rows = list(csv.DictReader(src.open(encoding="utf-8", newline="")))[:20]
    path = tmp_path / "cf.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    fmt, pairs = read_pairs(path)
    assert fmt == "clinifact_csv"
    assert [p.label for p in pairs] == [{"1": "SUPPORT", "0": "CONTRADICT", "2": "NEUTRAL"}[r["label"]] for r in rows]
    assert rows[0]["article_abstract"].strip()[:50] in pairs[0].passage


def test_multivers_rationale_sets_and_neutral_sentences(tmp_path):
    folder = STANCE / "healthver_multivers"
    claims = [json.loads(line) for line in (folder / "claims_dev.jsonl").read_text().splitlines()]
    with_evidence = next(c for c in claims if c["evidence"])
    path = tmp_path / "claims.jsonl"
    path.write_text(json.dumps(with_evidence) + "\n")
    fmt, pairs = read_pairs(path, folder / "corpus.jsonl")
    assert fmt == "multivers_jsonl"
    corpus = {
        json.loads(line)["doc_id"]: json.loads(line) for line in (folder / "corpus.jsonl").read_text().splitlines()
    }
    doc_id, rationales = next(iter(with_evidence["evidence"].items()))
    expected = " ".join(corpus[int(doc_id)]["abstract"][i] for i in sorted(rationales[0]["sentences"]))
    rationale_pairs = [p for p in pairs if p.kind == "rationale"]
    assert any(p.passage == expected and p.label == rationales[0]["label"] for p in rationale_pairs)
    listed = {str(d) for d in with_evidence["doc_ids"]}
    sentences = sum(len(corpus[int(d)]["abstract"]) for d in listed)
    in_rationale = sum(len(r["sentences"]) for rs in with_evidence["evidence"].values() for r in rs)
    assert sum(p.label == "NEUTRAL" for p in pairs) == sentences - in_rationale


def test_check_covid_needs_and_finds_its_corpus(tmp_path):
    src = STANCE / "check_covid" / "dev" / "covidCheck_dev_composed+extracted.json"
    lines = src.read_text().splitlines()[:12]
    (tmp_path / "dev").mkdir()
    path = tmp_path / "dev" / "cc.json"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match="needs its corpus"):
        read_pairs(path)
    fmt, pairs = read_pairs(path, STANCE / "check_covid" / "corpus.json")
    assert fmt == "check_covid_jsonl"
    gold = [json.loads(line)["label"] for line in lines]
    assert [p.label for p in pairs] == [
        {"SUPPORT": "SUPPORT", "REFUTE": "CONTRADICT", "NOTENOUGHINFO": "NEUTRAL"}[g] for g in gold
    ]
    (tmp_path / "corpus.json").write_text((STANCE / "check_covid" / "corpus.json").read_text())
    assert len(read_pairs(path)[1]) == len(pairs)  # corpus.json one folder up is found


def test_unknown_formats_are_refused(tmp_path):
    bad = tmp_path / "x.csv"
    bad.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(FormatError, match="unknown format"):
        detect_format(bad)
    odd = tmp_path / "x.jsonl"
    odd.write_text('{"question": "q"}\n')
    with pytest.raises(FormatError, match="neither"):
        detect_format(odd)


def test_labelled_pairs_one_per_line(tmp_path):
    """The project's own check sets (evals/data/plain_pairs.jsonl) are read as they are written; a bad row says
    where."""
    from pathlib import Path

    fmt, pairs = read_pairs(Path(__file__).resolve().parents[2] / "evals" / "data" / "plain_pairs.jsonl")
    assert fmt == "pairs_jsonl" and len(pairs) == 50
    assert {p.label for p in pairs} == {"SUPPORT", "CONTRADICT", "NEUTRAL"}
    assert (pairs[0].statement, pairs[0].passage, pairs[0].label) == (
        "Aspirin lowers fever.",
        "Fever fell after aspirin.",
        "SUPPORT",
    )
    bad = tmp_path / "pairs.jsonl"
    bad.write_text(
        '{"statement": "A lowers B", "passage": "B fell.", "label": "SUPPORT"}\n{"statement": "A lowers B", '
        '"passage": "B rose.", "label": "REFUTES"}\n'
    )
    with pytest.raises(FormatError, match=r"pairs.jsonl:2: unknown label 'REFUTES'"):
        read_pairs(bad)
    bad.write_text('{"statement": "A lowers B", "passage": " ", "label": "SUPPORT"}\n')
    with pytest.raises(FormatError, match=r"pairs.jsonl:1: a pair needs"):
        read_pairs(bad)
