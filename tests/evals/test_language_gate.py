"""evals.language_gate counts the English texts the gate refuses or notes and the foreign questions it refuses; a
refused English text makes its exit code 1."""

from __future__ import annotations

import json

from evals import language_gate


def write_claims(tmp_path, claims: list[str]) -> None:
    (tmp_path / "scifact").mkdir()
    lines = [json.dumps({"id": i, "claim": claim}) for i, claim in enumerate(claims)]
    (tmp_path / "scifact" / "claims_train.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_it_counts_false_refusals_and_foreign_catches(tmp_path, capsys):
    write_claims(tmp_path, ["Xanthogranulomatous cholecystitis: a premalignant condition?", "Statins lower LDL."])
    assert language_gate.main(["--data", str(tmp_path), "--json"]) == 0
    results = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert results["false_refusals"] == 0 and results["scifact_train_claims (2)"] == "refused 0, noted 0"
    assert (
        results["foreign_refused"]
        == results["foreign_questions"]
        == len(language_gate.read_jsonl(language_gate.FOREIGN))
    )


def test_a_refused_english_text_is_listed_and_exits_1(tmp_path, capsys):
    write_claims(tmp_path, ["Aspirin senkt das Risiko für Darmkrebs."])  # German among the English: counted as refused
    assert language_gate.main(["--data", str(tmp_path)]) == 1
    assert "refused: scifact_train_claims: Aspirin senkt das Risiko für Darmkrebs." in capsys.readouterr().out
