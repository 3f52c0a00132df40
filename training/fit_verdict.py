r"""Fit the verdict model (agent/verdict/model.py) on the training parts of every benchmark at once.

    python -m evals.verdict_collect --data ../shared/data --out ~/.cache/sparkit-verdict   # the answers, first
    python -m training.fit_verdict --answers ~/.cache/sparkit-verdict \
        --claims ../shared/data/scifact/claims_train.jsonl \
        [--out agent/models/verdict.json] [--report R.json]

Procedure, all of it out of fold (folds of whole groups: SciFact's linked claims, HealthVer topics, Check-COVID
abstracts, PubMedQA questions):
1. the claim model: multinomial logistic regression over the standardised features of agent/verdict/features.py,
   its regularisation chosen from a small grid by out-of-fold log-loss, then one temperature fitted on the
   out-of-fold logits;
2. the verdict is the likelier side (SUPPORT or CONTRADICT) and its probability the chance that it is right; the
   operating point is the lowest threshold (multiples of 0.05) whose out-of-fold precision keeps its Clopper-Pearson
   bound at or above `--target` (benchmarks.selection, Bonferroni over the candidates); where none does, the one
   whose bound is highest. A setting (evidence searched in a corpus, or given with the question) chooses on its own
   questions when it has at least 400, else on every claim-family question together;
3. the option model: a conditional logit over two options' features, fitted on SciFact's supported / contradicted
   claim pairs of the training claims (each option read in its own claim's run), temperature as above;
4. an ablation per input group: the same fit without it, out of fold.
The model file names the readers it was fitted with (their weights' sha256): the runtime refuses it for others.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import GroupKFold

from agent.verdict.features import claim_features, option_features
from agent.verdict.model import CLASSES, SETTINGS, reader_versions, softmax
from benchmarks.collected import claim_statement, relevance_of
from benchmarks.formats import read_jsonl
from benchmarks.questions import contrast_pairs
from benchmarks.selection import choose_or_safest, curve
from benchmarks.splits import scifact_groups, scifact_splits
from benchmarks.verdict_parts import PARTS, kept
from training.verdict_report import family_report, side_and_probability

GOLD = {"yes": "SUPPORT", "no": "CONTRADICT", "maybe": "NOT_ENOUGH_INFO"}
SETTING_OF = {"claims": "corpus", "pubmedqa": "documents", "healthver": "documents", "check_covid": "documents"}
C_GRID = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
GRID = 0.05  # candidate thresholds: multiples of 0.05, so the Bonferroni correction counts at most 20 of them
FOLDS = 5
MIN_QUESTIONS = 400
GROUPS = {
    "readers": ("_heuristic_lean", "_cross_lean", "_direction_lean", "direction_mean_lean"),
    "negation": ("_negation_lean",),
    "whole record": ("record_",),
    "structure": ("_structure",),
    "position": ("_inv_rank", "_sim", "max_sim", "mean_sim_top3"),
    "counts": ("records_for", "records_against", "sentences", "eligible_share", "records_read"),
    "form": ("form_", "polar_question"),
    "relevance": ("relevance",),
    "evidence reader": ("evidence_",),
    "quantity reader": ("quantity_",),
    "decider": ("decider_",),
}


def claim_table(
    folder: Path, claims: list[dict], part: str = "all", featurize: Any = claim_features, ids: list[str] | None = None
) -> tuple[list[dict[str, float]], list[str], list[str], list[str]]:
    """Features (`featurize(readings, statement, polar, relevance)`), gold class, CV group and family of every answered
    claim-family question of the part (training/verdict_parts.py); each question's id appended to `ids` if given."""
    groups, splits = scifact_groups(claims), scifact_splits(claims)
    rows, gold, group, family = [], [], [], []
    for name in ("claims", "pubmedqa", "healthver", "check_covid"):
        path = folder / f"{name}.jsonl"
        for line in read_jsonl(path) if path.is_file() else []:
            answer = line.get("answer")
            if not answer or not kept(part, name, line, splits):
                continue
            rows.append(
                featurize(answer["readings"], claim_statement(answer), answer["task"] == "polar", relevance_of(answer))
            )
            gold.append(GOLD.get(line["gold"], line["gold"]))
            key = line["id"]
            if ids is not None:
                ids.append(str(key))
            if name == "claims":
                key = str(groups.get(int(key), key))
            elif name == "healthver":
                key = str(line.get("topic") or key.split("_")[0])
            elif name == "check_covid":
                key = key.rsplit("_", 1)[0]
            group.append(f"{name}:{key}")
            family.append(name)
    return rows, gold, group, family


def matrix(rows: list[dict[str, float]], names: list[str]) -> np.ndarray:
    return np.asarray([[row[n] for n in names] for row in rows], dtype=np.float64)


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean, scale = x.mean(axis=0), x.std(axis=0)
    return mean, np.where(scale > 1e-9, scale, 1.0)


ABSENT = -30.0  # the logit of a class a fold never saw (the model cannot name what it was not shown)


def _columns(model: LogisticRegression, values: np.ndarray, n_classes: int) -> np.ndarray:
    """Decision values in one column per class 0..n_classes-1 (a binary fit's single column stays one column)."""
    if n_classes <= 2:
        return values if values.ndim == 2 else values[:, None]
    out = np.full((len(values), n_classes), ABSENT)
    out[:, model.classes_] = values if values.ndim == 2 else np.stack([-values, values], axis=1) / 2
    return out


def oof_logits(
    x: np.ndarray, y: np.ndarray, groups: list[str], c: float, intercept: bool = True, n_classes: int = 3
) -> np.ndarray:
    """Out-of-fold decision values (n, classes) of a logistic regression, folds of whole groups."""
    out = np.zeros((len(y), n_classes if n_classes > 2 else 1))
    for train, test in GroupKFold(n_splits=FOLDS).split(x, y, groups):
        mean, scale = standardise(x[train])
        model = LogisticRegression(C=c, max_iter=2000, fit_intercept=intercept)
        model.fit((x[train] - mean) / scale, y[train])
        out[test] = _columns(model, model.decision_function((x[test] - mean) / scale), n_classes)
    return out


def temperature_of(logits: np.ndarray, y: np.ndarray) -> float:
    """The one temperature that minimises the out-of-fold log-loss."""
    index = np.arange(len(y))

    def nll(t: float) -> float:
        return float(-np.log(softmax(logits / t)[index, y] + 1e-12).mean())

    return float(minimize_scalar(nll, bounds=(0.3, 5.0), method="bounded").x)


def operating_point(p: np.ndarray, y: np.ndarray, target: float, delta: float) -> dict[str, Any]:
    """The threshold the procedure in the module docstring chooses, whether it meets the target (else it is the
    threshold whose precision can be vouched for most), and the curve it chose from."""
    side, prob = side_and_probability(p)
    rows = [(math.floor(float(q) / GRID) * GRID, True, bool(s == g)) for q, s, g in zip(prob, side, y)]
    points = curve(rows)
    chosen, meets = choose_or_safest(points, target, delta)
    return {
        "threshold": float(chosen["threshold"]) if chosen else 1.01,
        "meets_target": meets,
        "point": chosen,
        "curve": points,
    }


def fit_claims(
    rows: list[dict[str, float]], gold: list[str], groups: list[str], names: list[str]
) -> tuple[float, np.ndarray, float]:
    """The chosen C, the calibrated out-of-fold probabilities, and the temperature."""
    x, y = matrix(rows, names), np.asarray([CLASSES.index(g) for g in gold])
    losses = {c: log_loss(y, softmax(oof_logits(x, y, groups, c)), labels=[0, 1, 2]) for c in C_GRID}
    c = min(losses, key=losses.__getitem__)
    logits = oof_logits(x, y, groups, c)
    t = temperature_of(logits, y)
    return c, softmax(logits / t), t


def final_linear(x: np.ndarray, y: np.ndarray, c: float) -> dict[str, Any]:
    """The claim model fitted on every question of a setting, one row per class (a class it never saw: ABSENT)."""
    mean, scale = standardise(x)
    model = LogisticRegression(C=c, max_iter=2000).fit((x - mean) / scale, y)
    coef, intercept = np.zeros((len(CLASSES), x.shape[1])), np.full(len(CLASSES), ABSENT)
    if len(model.classes_) == 2:  # a binary fit: one row, for the second class against the first
        coef[model.classes_[1]], intercept[model.classes_[1]] = model.coef_[0] / 2, model.intercept_[0] / 2
        coef[model.classes_[0]], intercept[model.classes_[0]] = -model.coef_[0] / 2, -model.intercept_[0] / 2
    else:
        coef[model.classes_], intercept[model.classes_] = model.coef_, model.intercept_
    return {
        "mean": mean.round(6).tolist(),
        "scale": scale.round(6).tolist(),
        "coef": coef.round(6).tolist(),
        "intercept": intercept.round(6).tolist(),
    }


def _answers(folder: Path, family: str) -> dict[str, dict[str, Any]]:
    path = folder / f"{family}.jsonl"
    return {line["id"]: line for line in read_jsonl(path) if line.get("answer")} if path.is_file() else {}


def option_table(
    folder: Path, claims: list[dict], part: str = "all"
) -> tuple[list[dict[str, float]], list[dict[str, float]], list[str]]:
    """(supported option, contradicted option) features, each option read in its own claim's run, and the pair's CV
    group: SciFact's supported / contradicted claims of one abstract (evals.scifact_mcq's pairs), and Check-COVID's
    claims written from one abstract with opposite labels ('... in thirty minutes' / '... in a few seconds')."""
    supported, contradicted, group = [], [], []
    groups, splits = scifact_groups(claims), scifact_splits(claims)
    answers = {k: v for k, v in _answers(folder, "claims").items() if kept(part, "claims", v, splits)}
    for s, c in contrast_pairs([c for c in claims if str(c["id"]) in answers]):
        supported.append(option_features(answers[str(s["id"])]["answer"]["readings"], 0, s["claim"]))
        contradicted.append(option_features(answers[str(c["id"])]["answer"]["readings"], 0, c["claim"]))
        group.append(f"claims:{groups[s['id']]}")
    by_abstract: dict[str, dict[str, dict[str, Any]]] = {}
    for key, line in _answers(folder, "check_covid").items() if part == "all" else ():
        by_abstract.setdefault(key.rsplit("_", 1)[0], {}).setdefault(line["gold"], line)
    for abstract, lines in sorted(by_abstract.items()):
        if "SUPPORT" in lines and "CONTRADICT" in lines:
            for out, line in ((supported, lines["SUPPORT"]), (contradicted, lines["CONTRADICT"])):
                out.append(option_features(line["answer"]["readings"], 0, claim_statement(line["answer"])))
            group.append(f"check_covid:{abstract}")
    return supported, contradicted, group


def fit_options(supported: list[dict[str, float]], contradicted: list[dict[str, float]], groups: list[str]) -> dict:
    """The conditional logit over two options: a logistic regression without intercept on standardised differences,
    both orders of each pair; C by out-of-fold log-loss, then a temperature."""
    names = list(supported[0])
    xs, xc = matrix(supported, names), matrix(contradicted, names)
    _, scale = standardise(np.vstack([xs, xc]))
    diff = np.vstack([(xs - xc) / scale, (xc - xs) / scale])
    y = np.asarray([1] * len(xs) + [0] * len(xc))
    pair_groups = groups + groups
    best: tuple[float, float] | None = None
    for c in C_GRID:
        z = oof_logits(diff, y, pair_groups, c, intercept=False, n_classes=2)[:, 0]
        loss = log_loss(y, 1 / (1 + np.exp(-z)), labels=[0, 1])
        best = (c, loss) if best is None or loss < best[1] else best
    assert best is not None
    c = best[0]
    z = oof_logits(diff, y, pair_groups, c, intercept=False, n_classes=2)[:, 0]
    t = temperature_of(np.stack([np.zeros_like(z), z], axis=1), y)
    model = LogisticRegression(C=c, max_iter=2000, fit_intercept=False).fit(diff, y)
    return {
        "features": names,
        "mean": np.zeros(len(names)).tolist(),
        "scale": scale.round(6).tolist(),
        "coef": model.coef_.round(6).tolist(),
        "intercept": [0.0],
        "temperature": round(t, 4),
        "threshold": 0.0,
        "oof": {"pairs": len(xs), "C": c, "accuracy": round(float(((z > 0) == (y == 1)).mean()), 4)},
    }


def ablations(rows: list[dict[str, float]], gold: list[str], groups: list[str], names: list[str], c: float) -> dict:
    """Out-of-fold log-loss and accuracy (argmax of three) with each input group left out."""
    y = np.asarray([CLASSES.index(g) for g in gold])
    result = {}
    for group, markers in {"none": (), **GROUPS}.items():
        kept = [n for n in names if not any(m in n for m in markers)] if markers else names
        p = softmax(oof_logits(matrix(rows, kept), y, groups, c))
        result[group] = {
            "features": len(kept),
            "log_loss": round(float(log_loss(y, p, labels=[0, 1, 2])), 4),
            "accuracy": round(float((p.argmax(axis=1) == y).mean()), 4),
        }
    return result


def running_readers(decider: Path | None = None) -> dict[str, str]:
    """The default offline judge's readers (with the MPNet decider when fitted with it) and their weights' sha256:
    what the model is fitted for."""
    from agent.api import stance_judge

    return reader_versions(stance_judge(stance_decider_weights=str(decider) if decider else "off"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.fit_verdict", description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=Path, required=True, help="folder of evals.verdict_collect")
    parser.add_argument("--claims", type=Path, required=True, help="SciFact claims_train.jsonl (for linked groups)")
    parser.add_argument("--out", type=Path, help="where to write the model (agent/models/verdict.json to ship it)")
    parser.add_argument("--report", type=Path, help="the out-of-fold report as JSON")
    parser.add_argument("--target", type=float, default=0.80, help="precision whose Clopper-Pearson bound must hold")
    parser.add_argument("--delta", type=float, default=0.1, help="the bound fails with probability at most delta")
    parser.add_argument(
        "--min-questions", type=int, default=MIN_QUESTIONS, help="refuse to choose an operating point on fewer"
    )
    parser.add_argument(
        "--part",
        choices=PARTS,
        default="unseen",
        help="the questions it learns from: 'unseen', only those no reader trained on (training/verdict_parts.py); "
        "'all', every collected question (readings made in-sample included)",
    )
    parser.add_argument("--options-from", type=Path, help="reuse this verdict model file's option model")
    parser.add_argument(
        "--decider",
        type=Path,
        help="the MPNet decider's adapter the answers were read with (training/reread.py --decider): the model names "
        "it; without it the decider's features are left out",
    )
    parser.add_argument(
        "--without", action="append", default=[], choices=sorted(GROUPS), help="leave an input group out (repeatable)"
    )
    args = parser.parse_args(argv)
    claims = read_jsonl(args.claims)
    rows, gold, groups, family = claim_table(args.answers, claims, args.part)
    if len(rows) < args.min_questions:
        parser.error(
            f"{len(rows)} claim-family questions answered: the operating point needs at least {args.min_questions}"
        )
    dropped = [m for group in [*args.without, *([] if args.decider else ["decider"])] for m in GROUPS[group]]
    names = [n for n in rows[0] if not any(m in n for m in dropped)]
    y = np.asarray([CLASSES.index(g) for g in gold])
    where = np.asarray([SETTING_OF[f] for f in family])
    oof, sections, fits = np.zeros((len(rows), len(CLASSES))), {}, {}
    for setting in SETTINGS:
        idx = np.flatnonzero(where == setting)
        if not len(idx):
            continue
        subset = [rows[i] for i in idx]
        c, oof[idx], t = fit_claims(subset, [gold[i] for i in idx], [groups[i] for i in idx], names)
        sections[setting] = {"features": names, **final_linear(matrix(subset, names), y[idx], c), "temperature": t}
        fits[setting] = {"questions": len(idx), "C": c, "temperature": round(t, 4)}
    joint = operating_point(oof, y, args.target, args.delta)
    for setting, section in sections.items():  # its own operating point where it has the questions to choose one
        idx = where == setting
        own = operating_point(oof[idx], y[idx], args.target, args.delta) if idx.sum() >= args.min_questions else None
        chosen = own or joint
        section["threshold"] = chosen["threshold"]
        fits[setting].update(
            threshold=chosen["threshold"],
            chosen_on="its own questions" if own else f"all {len(rows)} questions",
            meets_target=chosen["meets_target"],
            point=chosen["point"],
        )
    thresholds = np.asarray([sections[s]["threshold"] for s in where])
    supported, contradicted, pair_groups = option_table(args.answers, claims, args.part)
    if args.options_from:  # the option model of another file (its features are read by name)
        option = {**json.loads(args.options_from.read_text(encoding="utf-8"))["option"], "oof": {"reused": True}}
    elif len(set(pair_groups)) < 2 * FOLDS:
        parser.error(
            f"{len(pair_groups)} supported / contradicted claim pairs answered: too few to fit the options "
            "(--options-from FILE reuses another model's)"
        )
    else:
        option = fit_options(supported, contradicted, pair_groups)
    report = {
        "claim": {
            "questions": len(rows),
            "by_family": {f: family.count(f) for f in sorted(set(family))},
            "settings": fits,
            "joint_point": joint["point"],
            "oof_log_loss": round(float(log_loss(y, oof, labels=[0, 1, 2])), 4),
            "oof": family_report(oof, y, thresholds, family),
            "curves": {
                f: operating_point(oof[np.asarray(family) == f], y[np.asarray(family) == f], args.target, args.delta)[
                    "curve"
                ]
                for f in sorted(set(family))
            },
        },
        "option": option["oof"],
        "ablations": {
            setting: ablations(
                [rows[i] for i in np.flatnonzero(where == setting)],
                [gold[i] for i in np.flatnonzero(where == setting)],
                [groups[i] for i in np.flatnonzero(where == setting)],
                names,
                fits[setting]["C"],
            )
            for setting in sections
        },
    }
    model = {
        "version": 2,
        "readers": running_readers(args.decider),
        "claim": sections,
        "option": {k: v for k, v in option.items() if k != "oof"},
        "fit": {
            "procedure": "training/fit_verdict.py",
            "part": args.part,
            "without": args.without,
            "questions": report["claim"]["by_family"],
            "settings": {k: {kk: vv for kk, vv in v.items() if kk != "point"} for k, v in fits.items()},
            "option_pairs": option["oof"].get("pairs"),
            "option_reused_from": args.options_from.name if args.options_from else None,
            "target_precision": args.target,
            "delta": args.delta,
        },
    }
    if args.out:
        args.out.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report["claim"].items() if k != "curves"}, indent=1))
    print(json.dumps({"option": report["option"], "ablations": report["ablations"]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
