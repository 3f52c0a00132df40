"""An eval given a broken JSON Lines file stops with one line naming the file and line, exit 2, not a traceback."""

import pytest

from evals import scifact, scifact_mcq, unanswered


@pytest.mark.parametrize("module", [scifact, scifact_mcq])
def test_a_broken_claims_file_is_one_line_and_exit_2(module, tmp_path, capsys):
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        '{"id": 1, "claim": "Aspirin reduces colorectal cancer risk."}\n{"id": 2, "claim": \n', encoding="utf-8"
    )
    with pytest.raises(SystemExit) as stopped:
        module.main(["--claims", str(claims), "--corpus", str(tmp_path / "corpus.jsonl")])
    assert stopped.value.code == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1 and f"{claims} line 2 is not JSON" in message


def test_a_broken_answers_file_is_one_line_and_exit_2(tmp_path, capsys):
    claims, answers = tmp_path / "claims.jsonl", tmp_path / "answers.jsonl"
    claims.write_text(
        '{"id": 1, "claim": "Aspirin reduces colorectal cancer risk.", "evidence": {}}\n', encoding="utf-8"
    )
    answers.write_text("not json\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        unanswered.main(["--claims", str(claims), "--answers", str(answers)])
    assert stopped.value.code == 2 and f"{answers} line 1 is not JSON" in capsys.readouterr().err


@pytest.mark.parametrize("module", [scifact, scifact_mcq])
def test_a_bad_setting_is_one_line_and_exit_2(module, tmp_path, capsys):
    """`--set stance_readers=5` (not a list) is refused before anything runs, naming the setting, not a traceback."""
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"id": 1, "claim": "Aspirin reduces colorectal cancer risk."}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        module.main(["--claims", str(claims), "--corpus", str(tmp_path / "corpus.jsonl"), "--set", "stance_readers=5"])
    assert stopped.value.code == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1 and "invalid setting judges.stance_readers" in message


def test_a_bad_setting_of_the_pubmedqa_eval_is_one_line_and_exit_2(tmp_path, capsys):
    from evals import pubmedqa

    data = tmp_path / "pqal.json"
    data.write_text(
        '{"1": {"QUESTION": "Does aspirin lower fever?", "CONTEXTS": ["Fever fell."], "final_decision": "yes"}}',
        encoding="utf-8",
    )
    with pytest.raises(SystemExit) as stopped:
        pubmedqa.main(["--data", str(data), "--set", "court.decisive_confidence=high"])
    assert stopped.value.code == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1 and "court.decisive_confidence" in message
