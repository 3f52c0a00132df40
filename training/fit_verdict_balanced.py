r"""Fit the verdict model on a class-balanced objective, over every setting at once: the shipped procedure.

    python -m evals.verdict_collect --data ../shared/data --out ~/.cache/sparkit-verdict --part unseen
    python -m training.fit_verdict_balanced --answers ~/.cache/sparkit-verdict \
        --claims ../shared/data/scifact/claims_train.jsonl --options-from agent/models/verdict.json \
        [--out agent/models/verdict.json] [--report evals/data/verdict_fit_report.json] [--oof-out OOF.jsonl]

What changed from training/fit_verdict.py (kept for the comparison, whose out-of-fold figures this report repeats on
the same folds): the corpus setting was fitted on its own 136 questions under C = 0.003 and became nearly a prior
(evals/HISTORY.md, "Say no"). Here
1. one model learns from every reader-unseen question of every benchmark (benchmarks/verdict_parts.py), the setting
   an input (`c_setting_documents`), so SciFact's claims borrow the weights PubMedQA and HealthVer teach;
2. the candidates are input sets (the compact inputs of agent/verdict/compact.py, or the full list) times the
   regularisation grid, each scored by the out-of-fold *balanced* log-loss after a per-class calibration (a
   temperature and a bias per class fitted on the out-of-fold logits, training/verdict_balance.py): the objective a
   prior cannot win; the chosen one is the simplest within one standard error of the best;
3. the logistic regression weighs each class's questions equally;
4. the confidence map (the stated class's probability -> the chance that it is right) is fitted out of fold and
   shipped, so the printed probability stays honest while the decision is balanced;
5. the operating point is fitted as before (training/fit_verdict.py) on the mapped probabilities, except that where
   no threshold keeps the precision bound there is no confident tier (every stated answer is a lean);
6. the report gives recall per class (SUPPORT / CONTRADICT / NOT_ENOUGH_INFO) of what the three-tier answer states,
   per benchmark, beside always-SUPPORT and beside the old procedure, and what each input group pays out of fold.
Folds are whole groups (SciFact's linked claims, HealthVer topics, PubMedQA questions). Training code only.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from agent.verdict.apply import verdict_inputs
from agent.verdict.model import CLASSES, softmax
from benchmarks.formats import read_jsonl
from benchmarks.metrics import calibration, per_class_report
from benchmarks.verdict_parts import PARTS
from training.fit_verdict import (
    C_GRID,
    FOLDS,
    MIN_QUESTIONS,
    SETTING_OF,
    _columns,
    claim_table,
    fit_claims,
    matrix,
    operating_point,
    running_readers,
    standardise,
)
from training.verdict_balance import (
    balanced_accuracy,
    balanced_log_loss,
    class_weights,
    confidence_map,
    mapped,
    stated_classes,
    vector_scaling,
)
from training.verdict_report import family_report

SETTING_INPUT = "c_setting_documents"
NO_CONFIDENT_TIER = 1.01  # an operating point no probability reaches
COMPACT_GROUPS = {
    "deciding sentence": ("c_deciding_",),
    "strongest readings": ("c_strongest_", "c_against_"),
    "records' sides": ("c_records_share_",),
    "whole records": ("c_record_",),
    "rule readers": ("c_rule_",),
    "position and counts": ("c_max_sim", "c_log_eligible"),
    "form": ("c_form_", "c_polar_question"),
    "relevance": ("c_relevance",),
    "setting": (SETTING_INPUT,),
}


def every_input(readings: list[dict[str, Any]], statement: str, polar: bool, relevance: float | None) -> dict:
    """Every input a claim model may name, as the court computes them (agent.verdict.apply.verdict_inputs); the
    setting input is set per question after (main), from its benchmark."""
    return verdict_inputs(readings, statement, polar, relevance, "corpus")


def oof_balanced(x: np.ndarray, y: np.ndarray, groups: Sequence[str], c: float) -> np.ndarray:
    """Out-of-fold decision values (n, 3) of a class-balanced logistic regression, folds of whole groups."""
    out = np.zeros((len(y), len(CLASSES)))
    for train, test in GroupKFold(n_splits=FOLDS).split(x, y, groups):
        mean, scale = standardise(x[train])
        model = LogisticRegression(C=c, max_iter=3000, class_weight="balanced")
        model.fit((x[train] - mean) / scale, y[train])
        out[test] = _columns(model, model.decision_function((x[test] - mean) / scale), len(CLASSES))
    return out


def scaled_oof(x: np.ndarray, y: np.ndarray, groups: Sequence[str], c: float) -> tuple[np.ndarray, float, np.ndarray]:
    """Per-class calibrated out-of-fold probabilities, with the temperature and biases that calibrate them."""
    logits = oof_balanced(x, y, groups, c)
    t, bias = vector_scaling(logits, y)
    return softmax(logits / t + bias), t, bias


def _question_losses(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Each question's share of the balanced log-loss (its class's weight times its log-loss): they average to it."""
    weights = class_weights(y, p.shape[1])
    return weights * -np.log(np.clip(p[np.arange(len(y)), y], 1e-12, 1.0)) / weights.mean()


def choose(rows: list[dict[str, float]], y: np.ndarray, groups: list[str], sets: dict[str, list[str]]) -> dict:
    """Every candidate (input set x C) with its out-of-fold balanced log-loss, and the one chosen by the
    one-standard-error rule: the fewest inputs, then the strongest regularisation, among the candidates within one
    standard error of the best (a difference smaller than the noise of 731 questions does not buy 43 more inputs)."""
    scored = []
    for name, names in sets.items():
        x = matrix(rows, names)
        for c in C_GRID:
            p, _, _ = scaled_oof(x, y, groups, c)
            losses = _question_losses(y, p)
            scored.append(
                {
                    "inputs": name,
                    "n_inputs": len(names),
                    "C": c,
                    "balanced_log_loss": round(float(losses.mean()), 4),
                    "standard_error": round(float(losses.std(ddof=1) / np.sqrt(len(losses))), 4),
                }
            )
    best = min(scored, key=lambda s: s["balanced_log_loss"])
    within = [s for s in scored if s["balanced_log_loss"] <= best["balanced_log_loss"] + best["standard_error"]]
    chosen = min(within, key=lambda s: (s["n_inputs"], s["C"]))
    return {"chosen": chosen, "best": best, "candidates": scored}


def stated_report(p: np.ndarray, y: np.ndarray, family: list[str], confidence: np.ndarray) -> dict[str, Any]:
    """Per benchmark and over all: recall per class of what the three-tier answer states, beside always-SUPPORT, and
    how well the printed probability ranks and is calibrated."""
    stated = stated_classes(p)
    report = {}
    for name in sorted(set(family)) + ["all"]:
        keep = np.asarray([name in ("all", f) for f in family])
        gold = [CLASSES[k] for k in y[keep]]
        said = [CLASSES[k] for k in stated[keep]]
        right = stated[keep] == y[keep]
        ece, _ = calibration(list(confidence[keep]), list(right))
        report[name] = {
            "questions": int(keep.sum()),
            "three_tier_accuracy": round(float(right.mean()), 4),
            **per_class_report(gold, said, CLASSES, "SUPPORT"),
            "ece_of_stated": round(ece, 4),
        }
    return report


def ablations(rows: list[dict[str, float]], y: np.ndarray, groups: list[str], names: list[str], c: float) -> dict:
    """What each compact input group pays out of fold: the balanced log-loss and accuracy without it."""
    result = {}
    for group, markers in {"none": (), **COMPACT_GROUPS}.items():
        kept = [n for n in names if not any(n.startswith(m) for m in markers)] if markers else names
        if not kept or (markers and len(kept) == len(names)):
            continue
        p, _, _ = scaled_oof(matrix(rows, kept), y, groups, c)
        result[group] = {
            "inputs": len(kept),
            "balanced_log_loss": round(balanced_log_loss(y, p), 4),
            "balanced_accuracy": round(balanced_accuracy(y, stated_classes(p)), 4),
        }
    return result


def old_procedure(
    rows: list[dict[str, float]], gold: list[str], groups: list[str], family: list[str], names: list[str]
) -> np.ndarray:
    """The previous procedure's out-of-fold probabilities (training/fit_verdict.py: a model per setting, plain
    log-loss), on the same questions and folds: the comparison the report makes."""
    where = np.asarray([SETTING_OF[f] for f in family])
    oof = np.zeros((len(rows), len(CLASSES)))
    for setting in sorted(set(where)):
        idx = np.flatnonzero(where == setting)
        _, oof[idx], _ = fit_claims([rows[i] for i in idx], [gold[i] for i in idx], [groups[i] for i in idx], names)
    return oof


def final_section(x: np.ndarray, y: np.ndarray, c: float, t: float, bias: np.ndarray) -> dict[str, Any]:
    """The model fitted on every question; the per-class biases folded into its intercepts (logits / t + bias)."""
    mean, scale = standardise(x)
    model = LogisticRegression(C=c, max_iter=3000, class_weight="balanced").fit((x - mean) / scale, y)
    return {
        "mean": mean.round(6).tolist(),
        "scale": scale.round(6).tolist(),
        "coef": model.coef_.round(6).tolist(),
        "intercept": (model.intercept_ + t * bias).round(6).tolist(),
        "temperature": round(t, 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.fit_verdict_balanced", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--answers", type=Path, required=True, help="folder of evals.verdict_collect")
    parser.add_argument("--claims", type=Path, required=True, help="SciFact claims_train.jsonl (for linked groups)")
    parser.add_argument(
        "--options-from",
        type=Path,
        required=True,
        help="the verdict model file whose option model and full input list are kept",
    )
    parser.add_argument("--out", type=Path)
    parser.add_argument("--report", type=Path)
    parser.add_argument("--oof-out", type=Path, help="each question's out-of-fold probabilities, as JSON lines")
    parser.add_argument("--part", choices=PARTS, default="unseen")
    parser.add_argument("--inputs", choices=("choose", "compact", "full"), default="choose")
    parser.add_argument("--min-questions", type=int, default=MIN_QUESTIONS, help="refuse to fit on fewer")
    parser.add_argument("--target", type=float, default=0.80)
    parser.add_argument("--delta", type=float, default=0.1)
    args = parser.parse_args(argv)
    ids: list[str] = []
    rows, gold, groups, family = claim_table(args.answers, read_jsonl(args.claims), args.part, every_input, ids)
    if len(rows) < args.min_questions:
        parser.error(f"{len(rows)} claim-family questions answered: the fit needs at least {args.min_questions}")
    for row, name in zip(rows, family):
        row[SETTING_INPUT] = float(SETTING_OF[name] == "documents")
    old = json.loads(args.options_from.read_text(encoding="utf-8"))
    full_names = list(old["claim"]["corpus"]["features"])
    sets = {"compact": [n for n in rows[0] if n.startswith("c_")], "full": [*full_names, SETTING_INPUT]}
    if args.inputs != "choose":
        sets = {args.inputs: sets[args.inputs]}
    y = np.asarray([CLASSES.index(g) for g in gold])
    selection = choose(rows, y, groups, sets)
    inputs, c = selection["chosen"]["inputs"], selection["chosen"]["C"]
    names = sets[inputs]
    x = matrix(rows, names)
    p, t, bias = scaled_oof(x, y, groups, c)
    cmap = confidence_map(p, y)
    q = mapped(p, cmap)
    stated_p = q[np.arange(len(q)), stated_classes(p)]
    where = np.asarray([SETTING_OF[f] for f in family])
    joint = operating_point(q, y, args.target, args.delta)
    thresholds, points = {}, {}
    for setting in ("corpus", "documents"):
        idx = where == setting
        own = operating_point(q[idx], y[idx], args.target, args.delta) if idx.sum() >= args.min_questions else None
        chosen = own or joint
        # where no threshold keeps the precision bound there is no confident tier: every stated answer is a lean
        # (the fallback to the threshold with the lowest error bound gave a "confident" tier at precision 0.56-0.60)
        thresholds[setting] = chosen["threshold"] if chosen["meets_target"] else NO_CONFIDENT_TIER
        points[setting] = {
            "threshold": thresholds[setting],
            "lowest_error_bound_threshold": chosen["threshold"],
            "chosen_on": "its own questions" if own else f"all {len(rows)} questions",
            "meets_target": chosen["meets_target"],
            "point": chosen["point"],
        }
    p_old = old_procedure(rows, gold, groups, family, full_names)
    report = {
        "procedure": "training/fit_verdict_balanced.py",
        "questions": len(rows),
        "by_family": {f: family.count(f) for f in sorted(set(family))},
        "chosen": selection["chosen"],
        "best": selection["best"],
        "candidates": selection["candidates"],
        "temperature": round(t, 4),
        "class_bias": [round(float(b), 4) for b in bias],
        "confidence_map": [round(v, 4) for v in cmap],
        "operating_points": points,
        "oof_balanced_log_loss": round(balanced_log_loss(y, p), 4),
        "oof": stated_report(p, y, family, stated_p),
        "oof_tiers": family_report(q, y, np.asarray([thresholds[s] for s in where]), family),
        "old_procedure_oof": stated_report(p_old, y, family, p_old[np.arange(len(y)), stated_classes(p_old)]),
        "old_procedure_balanced_log_loss": round(balanced_log_loss(y, p_old), 4),
        "ablations": ablations(rows, y, groups, names, c) if inputs == "compact" else {},
    }
    section = {"features": names, **final_section(x, y, c, t, bias), "confidence_map": [round(v, 6) for v in cmap]}
    model = {
        "version": 3,
        "readers": running_readers(None),
        "claim": {s: {**section, "threshold": thresholds[s]} for s in ("corpus", "documents")},
        "option": old["option"],
        "fit": {
            "procedure": "training/fit_verdict_balanced.py",
            "part": args.part,
            "questions": report["by_family"],
            "inputs": inputs,
            "C": c,
            "objective": "out-of-fold balanced log-loss after per-class calibration",
            "operating_points": {k: {kk: vv for kk, vv in v.items() if kk != "point"} for k, v in points.items()},
            "option_reused_from": args.options_from.name,
            "target_precision": args.target,
            "delta": args.delta,
        },
    }
    if args.out:
        args.out.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if args.oof_out:
        with args.oof_out.open("w", encoding="utf-8") as sink:
            for k in range(len(rows)):
                line = {
                    "family": family[k],
                    "id": ids[k],
                    "group": groups[k],
                    "gold": gold[k],
                    "p": [round(float(v), 4) for v in p[k]],
                }
                sink.write(json.dumps(line) + "\n")
    brief = {k: v for k, v in report.items() if k not in ("candidates", "oof_tiers")}
    print(json.dumps(brief, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
