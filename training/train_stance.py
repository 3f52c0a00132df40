"""Train, evaluate and write the offline stance model (agent/models/stance_mlp.npz).

    python -m training.train_stance                   # select on validation, report held-out, write weights
    python -m training.train_stance --no-write        # the same numbers, weights untouched
    python -m training.train_stance --tune-heuristic  # also grid-search the heuristic's constants (train part)

Protocol (splits in benchmarks/splits.py): every variant is trained on the training part and scored on the
validation part to choose the variant and its epoch count; each variant is then retrained with those settings
on training + validation (never the held-out part) and scored once on the held-out part. The shipped weights
are that retrained model of the selected variant. Seeds are fixed; embeddings are cached on disk by sha256.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from agent.judges import heuristic
from agent.judges.features import CUE_NAMES, FEATURE_NAMES, pair_features
from agent.judges.packaged import softmax
from agent.judges.trained import default_weights_path
from agent.tools.models.encoder import shared_encoder
from training.dataset import (
    LABELS,
    StancePair,
    default_data_dir,
    healthver_pairs,
    negation_augment,
    scifact_pairs,
)

SLICES = {
    "scifact_sentences": ("rationale", "cited", "retrieved"),
    "scifact_rationales": ("rationale",),
    "scifact_abstracts": ("abstract",),
    "healthver": ("healthver",),
    "pubmedqa": ("pubmedqa",),
}
LABEL_INDEX = {label: i for i, label in enumerate(LABELS)}


# --- embeddings --------------------------------------------------------------------------------------


class EmbeddingCache:
    """sha256(text) -> MiniLM vector, persisted as an npz so re-runs skip the slow CPU encoding."""

    def __init__(self, path: Path):
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        if path.exists():
            with np.load(path, allow_pickle=False) as data:
                self.vectors = dict(zip((str(k) for k in data["keys"]), data["vectors"]))

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.vectors)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]))
        tmp.replace(self.path)

    def encode(self, texts: list[str], chunk: int = 1024) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self.vectors))
        if missing:
            print(f"encoding {len(missing)} texts (cached: {len(self.vectors)})", flush=True)
        encoder = shared_encoder()
        for start in range(0, len(missing), chunk):
            batch = missing[start : start + chunk]
            for text, vector in zip(batch, encoder.encode(batch)):
                self.vectors[self.key(text)] = vector
            self.save()
            print(f"  {min(start + chunk, len(missing))}/{len(missing)}", flush=True)
        return np.stack([self.vectors[self.key(t)] for t in texts]) if texts else np.zeros((0, 384), np.float32)


def featurise(pairs: list[StancePair], cache: EmbeddingCache) -> np.ndarray:
    statements = [p.statement for p in pairs]
    passages = [p.passage for p in pairs]
    vectors = cache.encode(list(dict.fromkeys(statements + passages)))
    row = {text: i for i, text in enumerate(dict.fromkeys(statements + passages))}
    u = vectors[[row[s] for s in statements]]
    v = vectors[[row[p] for p in passages]]
    return pair_features(u, v, statements, passages)


# --- metrics -----------------------------------------------------------------------------------------


def metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict:
    """Accuracy, macro-F1 over the classes present in y_true, per-class F1 and the confusion matrix."""
    confusion = np.zeros((len(LABELS), len(LABELS)), dtype=int)
    np.add.at(confusion, (y_true, y_pred), 1)
    per_class = {}
    for i, label in enumerate(LABELS):
        tp, fp, fn = confusion[i, i], confusion[:, i].sum() - confusion[i, i], confusion[i, :].sum() - confusion[i, i]
        per_class[label] = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else 0.0
    present = [LABELS[i] for i in range(len(LABELS)) if confusion[i].sum()]
    return {
        "n": len(y_true),
        "accuracy": float((y_true == y_pred).mean()) if len(y_true) else 0.0,
        "macro_f1": float(np.mean([per_class[k] for k in present])) if present else 0.0,
        "f1": {k: round(float(v), 4) for k, v in per_class.items()},
        "confusion": confusion.tolist(),
    }


def slice_report(pairs: list[StancePair], proba: np.ndarray) -> dict[str, dict]:
    y = np.array([LABEL_INDEX[p.label] for p in pairs])
    pred = proba.argmax(axis=1)
    kinds = np.array([p.kind for p in pairs])
    return {
        name: metrics(y[np.isin(kinds, ks)], pred[np.isin(kinds, ks)])
        for name, ks in SLICES.items()
        if np.isin(kinds, ks).any()
    }


def selection_score(report: dict[str, dict]) -> float:
    """Model selection target: mean macro-F1 of SciFact sentences and HealthVer (validation part)."""
    return (report["scifact_sentences"]["macro_f1"] + report["healthver"]["macro_f1"]) / 2


# --- models ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    name: str
    hidden: tuple[int, ...]  # () = logistic regression
    cue_only: bool = False
    augment: bool = False
    healthver: bool = True
    max_epochs: int = 30
    lr: float = 1e-3
    weight_decay: float = 1e-4
    dropout: float = 0.2


VARIANTS = (
    Variant("cue-logreg", (), cue_only=True),
    Variant("feature-logreg", ()),
    Variant("feature-mlp", (128,), lr=3e-4, dropout=0.3, weight_decay=1e-3),
    Variant("feature-mlp-scifact-only", (128,), healthver=False, lr=3e-4, dropout=0.3, weight_decay=1e-3),
    Variant("feature-mlp+negation-aug", (128,), augment=True, lr=3e-4, dropout=0.3, weight_decay=1e-3),
)


def _columns(variant: Variant) -> np.ndarray:
    n_embed = len(FEATURE_NAMES) - len(CUE_NAMES)
    return np.arange(n_embed, len(FEATURE_NAMES)) if variant.cue_only else np.arange(len(FEATURE_NAMES))


class Trained:
    """A fitted network plus its standardisation, exportable to the npz inference format."""

    def __init__(self, variant: Variant, net: torch.nn.Sequential, mean: np.ndarray, scale: np.ndarray):
        self.variant, self.net, self.mean, self.scale = variant, net, mean, scale
        self.temperature = 1.0

    def logits(self, x: np.ndarray) -> np.ndarray:
        self.net.eval()
        with torch.no_grad():
            z = (x[:, _columns(self.variant)] - self.mean) / self.scale
            return self.net(torch.from_numpy(z.astype(np.float32))).numpy()

    def proba(self, x: np.ndarray) -> np.ndarray:
        return softmax(self.logits(x), self.temperature)

    def export(self) -> dict[str, np.ndarray]:
        """Weights over the full FEATURE_NAMES vector (cue-only models get zero rows for the embeddings)."""
        linears = [m for m in self.net if isinstance(m, torch.nn.Linear)]
        arrays: dict[str, np.ndarray] = {"n_layers": np.array(len(linears))}
        cols = _columns(self.variant)
        mean = np.zeros(len(FEATURE_NAMES), np.float32)
        scale = np.ones(len(FEATURE_NAMES), np.float32)
        mean[cols], scale[cols] = self.mean, self.scale
        for i, layer in enumerate(linears):
            w = layer.weight.detach().numpy().T.astype(np.float32)
            if i == 0 and len(cols) != len(FEATURE_NAMES):
                full = np.zeros((len(FEATURE_NAMES), w.shape[1]), np.float32)
                full[cols] = w
                w = full
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = layer.bias.detach().numpy().astype(np.float32)
        arrays.update(mean=mean, scale=scale, temperature=np.array(self.temperature, np.float32))
        return arrays


def _network(variant: Variant, n_in: int) -> torch.nn.Sequential:
    layers: list[torch.nn.Module] = []
    width = n_in
    for hidden in variant.hidden:
        layers += [torch.nn.Dropout(variant.dropout), torch.nn.Linear(width, hidden), torch.nn.ReLU()]
        width = hidden
    layers += [torch.nn.Dropout(variant.dropout), torch.nn.Linear(width, len(LABELS))]
    return torch.nn.Sequential(*layers)


def fit(variant: Variant, x: np.ndarray, y: np.ndarray, epochs: int, seed: int, on_epoch=None) -> Trained:
    """Class-balanced cross-entropy with AdamW; `on_epoch(epoch, model)` lets the caller track validation."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    cols = _columns(variant)
    xs = x[:, cols]
    mean, scale = xs.mean(axis=0), xs.std(axis=0) + 1e-6
    xt = torch.from_numpy(((xs - mean) / scale).astype(np.float32))
    yt = torch.from_numpy(y.astype(np.int64))
    counts = np.bincount(y, minlength=len(LABELS)).astype(np.float64)
    class_weight = torch.tensor(counts.sum() / (len(LABELS) * np.maximum(counts, 1)), dtype=torch.float32)
    net = _network(variant, len(cols))
    optimiser = torch.optim.AdamW(net.parameters(), lr=variant.lr, weight_decay=variant.weight_decay)
    loss_fn = torch.nn.CrossEntropyLoss(weight=class_weight)
    model = Trained(variant, net, mean, scale)
    for epoch in range(1, epochs + 1):
        net.train()
        order = torch.from_numpy(rng.permutation(len(y)))
        for start in range(0, len(y), 128):
            idx = order[start : start + 128]
            optimiser.zero_grad()
            loss_fn(net(xt[idx]), yt[idx]).backward()
            optimiser.step()
        if on_epoch is not None:
            on_epoch(epoch, model)
    return model


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """Temperature minimising validation NLL (scales confidence, never changes the argmax)."""
    best, best_nll = 1.0, float("inf")
    for t in np.arange(0.5, 4.01, 0.05):
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        nll = -(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(axis=1))).mean()
        if nll < best_nll:
            best, best_nll = float(t), float(nll)
    return round(best, 2)


# --- heuristic ---------------------------------------------------------------------------------------


def heuristic_proba(pairs: list[StancePair], x: np.ndarray) -> np.ndarray:
    cosine = x[:, FEATURE_NAMES.index("cosine")]
    rows = [heuristic.heuristic_probabilities(p.statement, p.passage, float(c)) for p, c in zip(pairs, cosine)]
    return np.array([[r[label] for label in LABELS] for r in rows])


def tune_heuristic(pairs: list[StancePair], x: np.ndarray) -> None:
    """Grid-search the heuristic's relatedness cosine and contradiction threshold on the training part."""
    best = (0.0, None)
    original = (heuristic.RELATED_COSINE, heuristic.CONTRADICT_AT)
    for related in np.arange(0.35, 0.76, 0.025):
        for contradict_at in (0.25, 0.5, 0.75, 1.0):
            heuristic.RELATED_COSINE, heuristic.CONTRADICT_AT = float(related), contradict_at
            score = selection_score(slice_report(pairs, heuristic_proba(pairs, x)))
            if score > best[0]:
                best = (score, (round(float(related), 3), contradict_at))
    heuristic.RELATED_COSINE, heuristic.CONTRADICT_AT = original
    print(
        f"heuristic tuning on the training part: best (RELATED_COSINE, CONTRADICT_AT) = {best[1]}, score {best[0]:.4f}"
    )


def benchmark(weights: Path, heldout: list[StancePair], n: int = 200) -> dict[str, float]:
    """Seconds for n held-out pairs: cold (statement + passage encoding included) and warm (LRU-cached)."""
    from agent.judges.trained import TrainedStanceJudge

    sample = [(p.statement, p.passage) for p in heldout if p.kind in ("rationale", "cited", "retrieved")][:n]
    judge = TrainedStanceJudge(weights)
    judge.judge_sync(sample[:2])  # loads the encoder and the weights
    t0 = time.perf_counter()
    judge.judge_sync(sample)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(5):
        judge.judge_sync(sample)
    warm = (time.perf_counter() - t0) / 5
    print(
        f"benchmark: {len(sample)} pairs cold {cold:.2f}s, warm {warm * 1000:.1f} ms ({len(sample) / warm:.0f} pairs/s)"
    )
    return {"pairs": len(sample), "cold_seconds": round(cold, 3), "warm_seconds": round(warm, 4)}


# --- main --------------------------------------------------------------------------------------------


def _format(report: dict[str, dict]) -> str:
    return "  ".join(
        f"{name}: acc {r['accuracy']:.3f} mF1 {r['macro_f1']:.3f} "
        f"(S {r['f1']['SUPPORT']:.3f} C {r['f1']['CONTRADICT']:.3f} N {r['f1']['NEUTRAL']:.3f})"
        for name, r in report.items()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=default_data_dir())
    parser.add_argument("--cache", type=Path, default=Path("/tmp/sk/cache/stance/embeddings.npz"))
    parser.add_argument("--out", type=Path, default=default_weights_path())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default=None, help="ship this variant instead of the best on validation")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--tune-heuristic", action="store_true")
    parser.add_argument("--benchmark", action="store_true", help="time the written model on 200 held-out pairs")
    parser.add_argument("--report", type=Path, default=None, help="write every number as JSON here")
    args = parser.parse_args()
    torch.set_num_threads(2)
    started = time.perf_counter()

    pairs = scifact_pairs(args.data_dir) + healthver_pairs(args.data_dir)
    augment_full = negation_augment([p for p in pairs if p.split in ("train", "val")])
    augment_train = [p for p in augment_full if p.split == "train"]  # augmentation is per pair, so a subset
    cache = EmbeddingCache(args.cache)
    t0 = time.perf_counter()
    everything = pairs + augment_full
    x_all = featurise(everything, cache)
    print(f"features for {len(everything)} pairs in {time.perf_counter() - t0:.1f}s", flush=True)
    index = {id(p): i for i, p in enumerate(everything)}

    def x_of(ps: list[StancePair]) -> np.ndarray:
        return x_all[[index[id(p)] for p in ps]]

    def y_of(ps: list[StancePair]) -> np.ndarray:
        return np.array([LABEL_INDEX[p.label] for p in ps])

    train = [p for p in pairs if p.split == "train"]
    val = [p for p in pairs if p.split == "val"]
    heldout = [p for p in pairs if p.split == "heldout"]
    print(
        f"pairs: train {len(train)} val {len(val)} heldout {len(heldout)}; negation-augmented "
        f"{len(augment_train)} (train) / {len(augment_full)} (train+val)"
    )

    results: dict[str, dict] = {}
    if args.tune_heuristic:
        tune_heuristic(train, x_of(train))
    results["heuristic"] = {
        "heldout": slice_report(heldout, heuristic_proba(heldout, x_of(heldout))),
        "val": slice_report(val, heuristic_proba(val, x_of(val))),
    }
    print(f"[heuristic] val  {_format(results['heuristic']['val'])}")
    print(f"[heuristic] held {_format(results['heuristic']['heldout'])}", flush=True)

    x_val, y_val = x_of(val), y_of(val)
    finals: dict[str, Trained] = {}
    for variant in VARIANTS:

        def select(ps: list[StancePair]) -> list[StancePair]:
            return [p for p in ps if variant.healthver or p.kind != "healthver"]  # noqa: B023 - called in this iteration

        fit_pairs = select(train) + (select(augment_train) if variant.augment else [])
        history: list[tuple[float, int]] = []

        def track(epoch: int, model: Trained) -> None:
            history.append((selection_score(slice_report(val, model.proba(x_val))), epoch))  # noqa: B023 - fit calls it now

        t0 = time.perf_counter()
        model = fit(variant, x_of(fit_pairs), y_of(fit_pairs), variant.max_epochs, args.seed, on_epoch=track)
        best_score, best_epoch = max(history, key=lambda h: (round(h[0], 4), -h[1]))
        selection_model = fit(variant, x_of(fit_pairs), y_of(fit_pairs), best_epoch, args.seed)
        temperature = fit_temperature(selection_model.logits(x_val), y_val)
        full_pairs = select(train + val) + (select(augment_full) if variant.augment else [])
        final = fit(variant, x_of(full_pairs), y_of(full_pairs), best_epoch, args.seed)
        final.temperature = temperature
        seconds = time.perf_counter() - t0
        finals[variant.name] = final
        results[variant.name] = {
            "val_score": round(best_score, 4),
            "epochs": best_epoch,
            "temperature": temperature,
            "train_pairs": len(full_pairs),
            "fit_seconds": round(seconds, 1),
            "heldout": slice_report(heldout, final.proba(x_of(heldout))),
        }
        print(
            f"[{variant.name}] val score {best_score:.4f} at epoch {best_epoch}, T={temperature}, "
            f"{len(full_pairs)} pairs, {seconds:.0f}s (3 fits)"
        )
        print(f"[{variant.name}] held {_format(results[variant.name]['heldout'])}", flush=True)
        del model

    chosen = args.variant or max(VARIANTS, key=lambda v: results[v.name]["val_score"]).name
    total = time.perf_counter() - started
    print(f"selected on validation: {chosen}; total time {total:.0f}s")
    results["selected"] = chosen
    results["total_seconds"] = round(total, 1)
    if not args.no_write:
        meta = {
            "variant": chosen,
            "seed": args.seed,
            "epochs": results[chosen]["epochs"],
            "train_pairs": results[chosen]["train_pairs"],
            "heldout": results[chosen]["heldout"],
            "split_rules": "benchmarks/splits.py",
        }
        arrays = finals[chosen].export()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            args.out,
            **arrays,
            feature_names=np.array(FEATURE_NAMES),
            labels=np.array(LABELS),
            meta=np.array(json.dumps(meta, sort_keys=True)),
        )
        print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    if args.benchmark:
        results["benchmark"] = benchmark(args.out, heldout)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
