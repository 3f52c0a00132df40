"""evals/study_design.py: the scores it prints, and that it will not list the misread abstracts of the part never
tuned on."""

from __future__ import annotations

import json

from evals.study_design import main


def _files(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        json.dumps(
            {
                "doc_id": 1,
                "title": "Zinc for colds: a randomised controlled trial",
                "abstract": ["We randomly assigned 120 adults to zinc or placebo.", "Colds were shorter with zinc."],
            }
        )
        + "\n"
        + json.dumps({"doc_id": 2, "title": "Zinc in cells", "abstract": ["Here we cultured cells with zinc."]})
        + "\n"
    )
    data = tmp_path / "labels.jsonl"
    rows = [
        {"doc_id": 1, "design": "RCT", "sample_size": 120, "note": "", "split": "final"},
        {"doc_id": 2, "design": "animal", "sample_size": None, "note": "", "split": "final"},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return corpus, data


def test_it_scores_design_and_size_and_prints_the_confusion_table(tmp_path, capsys):
    corpus, data = _files(tmp_path)
    assert main(["--data", str(data), "--corpus", str(corpus), "--split", "final", "--json"]) == 0
    out = capsys.readouterr().out
    payload = json.loads(out.strip().splitlines()[-1])
    assert payload["design_accuracy"] == 0.5 and payload["size_exact"] == 1.0 and payload["size_stated"] == 1
    assert "label \\ read" in out and "animal" in out


def test_it_will_not_list_the_errors_of_the_part_never_tuned_on(tmp_path, capsys):
    corpus, data = _files(tmp_path)
    assert main(["--data", str(data), "--corpus", str(corpus), "--split", "final", "--errors"]) == 2
    assert "--errors" in capsys.readouterr().err


def test_unseen_scores_both_parts_never_tuned_on_and_lists_no_errors_of_either(tmp_path, capsys):
    corpus, data = _files(tmp_path)
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    rows[1]["split"] = "final2"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["--data", str(data), "--corpus", str(corpus), "--split", "unseen", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["abstracts"] == 2
    assert main(["--data", str(data), "--corpus", str(corpus), "--split", "final2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["abstracts"] == 1
    for split in ("final2", "unseen"):
        assert main(["--data", str(data), "--corpus", str(corpus), "--split", split, "--errors"]) == 2
