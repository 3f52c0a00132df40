"""Confidence: the evidence-score blend, the shipped Platt maps, and how the backend picks a calibrator."""

from __future__ import annotations

import pytest

from agent.backend.judging_parts import calibrator_for, offline_stance
from agent.config import Context
from agent.errors import ConfigurationError
from agent.records import Claim, ClaimVerdict, Hypothesis, LedgerEntry
from agent.scoring import calibration
from agent.scoring.calibration import (
    CalibrationTable,
    PlattCalibrator,
    PlattScale,
    RawScore,
    evidence_score,
    load_table,
)


def _entry(hypothesis_id: str, stance: str) -> LedgerEntry:
    return LedgerEntry(hypothesis_id=hypothesis_id, record_id="r", text="t", stance=stance, confidence=0.9)


def _judge(name: str):
    return type("Judge", (), {"name": name})()


def test_evidence_score_blends_margin_consensus_verification_and_coverage():
    lone = [Hypothesis(id="H1", text="a", score=2.0), Hypothesis(id="H2", text="b", score=0.5)]
    ledger = [_entry("H1", "SUPPORT"), _entry("H1", "SUPPORT")]
    assert evidence_score(0.5, lone, [], ledger) == pytest.approx(0.3 + 0.4 * 0.5 + 0.08 + 0.1 * 0.5)
    verified = [Claim(text="x", verdict=ClaimVerdict.VERIFIED)]
    assert evidence_score(0.5, lone, verified, ledger) == pytest.approx(0.63 + 0.2 * 0.5)
    neutral_only = [_entry("H1", "NEUTRAL")]
    assert evidence_score(0.9, lone, [], neutral_only) == calibration.NO_EVIDENCE_SCORE
    assert evidence_score(None, [], [], ledger) == calibration.NO_EVIDENCE_SCORE


def test_platt_scale_is_a_bounded_monotone_map():
    scale = PlattScale(slope=2.0, intercept=-1.0)
    assert scale(0.5) == pytest.approx(0.5)
    values = [scale(x / 10) for x in range(11)]
    assert values == sorted(values) and all(0.0 < v < 1.0 for v in values)
    assert scale(1e6) == 1.0 and scale(-1e6) == 0.0


def test_shipped_table_is_for_the_default_judge_and_orders_what_it_should():
    table = load_table()
    assert table is not None and table.examples >= 50
    assert table.stance_model == offline_stance(Context().judges)[0].name
    # More evidence makes the leading answer likelier right and "insufficient evidence" likelier wrong.
    assert table.leading(0.8) > table.leading(0.05) and table.abstention(0.05) > table.abstention(0.8)


def test_calibrator_for_follows_the_setting_and_the_judge(monkeypatch, tmp_path):
    table = CalibrationTable(
        stance_model="ensemble(heuristic+cross)",
        leading=PlattScale(slope=2, intercept=-1),
        abstention=PlattScale(slope=-2, intercept=0.5),
        fitted_on="test",
        examples=10,
    )
    path = tmp_path / "calibration.json"
    path.write_text(table.model_dump_json())
    monkeypatch.setattr(calibration, "default_table_path", lambda: path)
    fitted, notes = calibrator_for(Context().judges, _judge("ensemble(heuristic+cross)"))
    assert isinstance(fitted, PlattCalibrator) and fitted.leading(0.5) == pytest.approx(0.5) and notes == []
    other, notes = calibrator_for(Context().judges, _judge("llm"))
    assert isinstance(other, RawScore) and "for the ensemble(heuristic+cross) judge, not llm" in notes[0]
    assert isinstance(calibrator_for(Context(calibration="fitted").judges, _judge("llm"))[0], PlattCalibrator)
    assert isinstance(
        calibrator_for(Context(calibration="raw").judges, _judge("ensemble(heuristic+cross)"))[0], RawScore
    )
    path.unlink()
    assert "no fitted table" in calibrator_for(Context().judges, _judge("x"))[1][0]
    with pytest.raises(ConfigurationError, match="fit_calibration"):
        calibrator_for(Context(calibration="fitted").judges, _judge("x"))


def test_raw_score_reports_the_score_itself():
    raw = RawScore()
    assert raw.leading(0.42) == raw.abstention(0.42) == 0.42


def test_maps_fitted_for_other_weights_of_the_same_judge_are_not_applied(monkeypatch, tmp_path):
    """Retraining the cross-encoder keeps the judge's name; the table's weights digest tells the maps apart."""
    from agent.judges import cross
    from agent.judges.packaged import weights_digest

    weights = tmp_path / "stance_cross.npz"
    weights.write_bytes(b"first weights")
    monkeypatch.setattr(cross, "default_cross_weights_path", lambda: weights)
    table = CalibrationTable(
        stance_model="ensemble(heuristic+cross)",
        leading=PlattScale(slope=2, intercept=-1),
        abstention=PlattScale(slope=-2, intercept=0.5),
        fitted_on="test",
        examples=10,
        stance_weights_sha256=weights_digest(weights),
    )
    path = tmp_path / "calibration.json"
    path.write_text(table.model_dump_json())
    monkeypatch.setattr(calibration, "default_table_path", lambda: path)
    assert isinstance(calibrator_for(Context().judges, _judge("ensemble(heuristic+cross)"))[0], PlattCalibrator)
    weights.write_bytes(b"retrained weights")
    raw, notes = calibrator_for(Context().judges, _judge("ensemble(heuristic+cross)"))
    assert isinstance(raw, RawScore) and "other cross-encoder weights" in notes[0]
    # A judge the user trained (`stance_weights=FILE`) is checked against the maps, not the packaged file.
    weights.write_bytes(b"first weights")
    assert isinstance(calibrator_for(Context().judges, _judge("ensemble(heuristic+cross)"))[0], PlattCalibrator)
    own = tmp_path / "mine.npz"
    own.write_bytes(b"a user's judge")
    raw, notes = calibrator_for(Context(stance_weights=str(own)).judges, _judge("ensemble(heuristic+cross)"))
    assert isinstance(raw, RawScore) and "other cross-encoder weights than the ones in use" in notes[0]


def test_a_calibration_table_of_ones_own_is_used_and_a_missing_one_is_an_error(tmp_path):
    table = CalibrationTable(
        stance_model="ensemble(heuristic+cross)/direction(mine)",
        leading=PlattScale(slope=2, intercept=-1),
        abstention=PlattScale(slope=-2, intercept=0.5),
        fitted_on="test",
        examples=10,
    )
    own = tmp_path / "mine.json"
    own.write_text(table.model_dump_json())
    fitted, notes = calibrator_for(
        Context(calibration_table=str(own)).judges, _judge("ensemble(heuristic+cross)/direction(mine)")
    )
    assert isinstance(fitted, PlattCalibrator) and fitted.leading(0.5) == pytest.approx(0.5) and notes == []
    with pytest.raises(ConfigurationError, match="does not exist"):
        calibrator_for(Context(calibration_table=str(tmp_path / "absent.json")).judges, _judge("x"))


def test_a_verified_quote_of_evidence_against_the_answer_does_not_raise_its_confidence():
    from agent.scoring.calibration import verification_rate

    backing = Claim(text="Metformin increases insulin sensitivity.", verdict=ClaimVerdict.VERIFIED)
    against = Claim(
        text="Metformin decreases insulin sensitivity in obesity.", verdict=ClaimVerdict.VERIFIED, against_answer=True
    )
    assert verification_rate([backing]) == 1.0
    assert verification_rate([backing, against]) == 0.5
    assert (
        verification_rate([against]) == 0.0 < verification_rate([])
    )  # corroborated counter-evidence: below no information


def test_maps_fitted_with_one_direction_reader_are_not_applied_with_another(monkeypatch, tmp_path):
    """The direction reader changes which side passages take, so the maps name its weights too."""
    from agent.judges.packaged import weights_digest

    reader, other = tmp_path / "reader.npz", tmp_path / "other.npz"
    reader.write_bytes(b"a direction reader")
    other.write_bytes(b"another direction reader")
    name = "ensemble(heuristic+cross)/direction(x)"
    table = CalibrationTable(
        stance_model=name,
        leading=PlattScale(slope=2, intercept=-1),
        abstention=PlattScale(slope=-2, intercept=0.5),
        fitted_on="test",
        examples=10,
        direction_weights_sha256=weights_digest(reader),
    )
    path = tmp_path / "calibration.json"
    path.write_text(table.model_dump_json())
    monkeypatch.setattr(calibration, "default_table_path", lambda: path)
    assert isinstance(
        calibrator_for(Context(stance_direction_weights=str(reader)).judges, _judge(name))[0], PlattCalibrator
    )
    raw, notes = calibrator_for(Context(stance_direction_weights=str(other)).judges, _judge(name))
    assert isinstance(raw, RawScore) and "other cross-encoder weights" in notes[0]
    assert isinstance(
        calibrator_for(Context(stance_direction_weights="off").judges, _judge(name))[0], RawScore
    )  # no reader at all


def test_the_ensembles_maps_apply_to_it_without_the_direction_reader_and_to_nothing_else():
    """evals/data/calibration_ensemble.json was fitted with the ensemble alone (the default before the direction
    reader): `--set calibration_table=...` with `stance_direction_weights=off` gets the maps, the default judge does
    not, and the packaged maps are not applied to the ensemble alone."""
    from pathlib import Path

    table = str(Path(__file__).resolve().parents[2] / "evals" / "data" / "calibration_ensemble.json")
    alone = Context(stance_direction_weights="off", stance_structure=False, calibration_table=table).judges
    fitted, notes = calibrator_for(alone, offline_stance(alone)[0])
    assert isinstance(fitted, PlattCalibrator) and notes == []
    default = Context(stance_structure=False, calibration_table=table).judges
    raw, notes = calibrator_for(default, offline_stance(default)[0])
    assert isinstance(raw, RawScore) and "not ensemble(heuristic+cross)/direction" in notes[0]
    alone_packaged = Context(stance_direction_weights="off").judges
    raw, notes = calibrator_for(alone_packaged, offline_stance(alone_packaged)[0])
    assert isinstance(raw, RawScore) and "are for the ensemble(heuristic+cross)/direction" in notes[0]
