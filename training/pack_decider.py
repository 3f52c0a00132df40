r"""Pack a trained MPNet direction reader (training/trial_base.py's `top.pt`) as the decider's adapter.

    python -m training.pack_decider --trial ~/.cache/sparkit-train/mpnet-run/out \
        --pool-file ~/.cache/sparkit-train/pool.jsonl.gz --out agent/models/decider_mpnet.npz

The adapter holds only what training changed: the top layers and the two-way head, matrices as int8 with a float16
scale per row (training/train_judge.py `quantized`), vectors as float16; the frozen layers come from the registry's
base at load time (agent/judges/mpnet_base.py), whose sha256 the meta names. Its temperature is fitted on the pool's
validation pairs that take a side (the trial's `probs.npy`, in the trial's evaluation order), never on held-out ones.
Before writing, the int8 adapter is read back through the runtime loader (agent/judges/decider.py) on `--check`
validation pairs and its side compared with the trial's float reading: the report says how often they agree.
Training code: never imported at run time.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

import numpy as np
import torch

from agent.judges.decider import SIDES, DeciderModel
from agent.judges.mpnet_base import BASE_NAME, BASE_SHA256
from training.fit_verdict import temperature_of
from training.train_judge import quantized, read_pool


def adapter_arrays(trained: dict[str, dict[str, torch.Tensor]]) -> dict[str, np.ndarray]:
    """trial_base's trained state as the runtime network's names (`encoder.` + the base's, `head.`), quantised."""
    arrays: dict[str, np.ndarray] = {}
    for name, tensor in trained["layers"].items():
        arrays.update(quantized(f"encoder.{name}", tensor.float().numpy()))
    for name, tensor in trained["head"].items():
        arrays[f"head.{name}"] = tensor.float().numpy().astype(np.float32)
    return arrays


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.pack_decider", description=__doc__.split("\n\n")[0])
    parser.add_argument("--trial", type=Path, required=True, help="training/trial_base.py's --out folder")
    parser.add_argument("--pool-file", type=Path, required=True, help="the pool the trial read")
    parser.add_argument("--out", type=Path, required=True, help="the adapter (.npz)")
    parser.add_argument("--check", type=int, default=200, help="validation pairs read back through the loader")
    args = parser.parse_args(argv)
    report = json.loads((args.trial / "report.json").read_text(encoding="utf-8"))
    trained = torch.load(args.trial / "top.pt", map_location="cpu")
    probs = np.load(args.trial / "probs.npy")
    pool, _ = read_pool(args.pool_file)
    excluded = {s for s in str(report["config"].get("eval_exclude", "")).split(",") if s}
    evaluated = [p for p in pool if p.split in ("val", "heldout") and p.label in SIDES and p.source not in excluded]
    if len(evaluated) != len(probs):
        parser.error(f"the pool gives {len(evaluated)} evaluated pairs, the trial read {len(probs)}: another pool?")
    val = [i for i, p in enumerate(evaluated) if p.split == "val"]
    gold = np.asarray([SIDES.index(evaluated[i].label) for i in val])
    temperature = temperature_of(np.log(np.clip(probs[val], 1e-7, 1.0)), gold)  # the side logits' one temperature
    layers = sorted({int(name.split(".")[2]) for name in trained["layers"]})
    meta = {
        "base": BASE_NAME,
        "base_sha256": BASE_SHA256,
        "labels": list(SIDES),
        "max_len": int(report["config"].get("max_len", 128)),
        "trained_layers": layers,
        "temperature": round(temperature, 4),
        "train_pairs": report["train_pairs"],
        "train_pairs_by_source": report["train_pairs_by_source"],
        "recipe": "training/trial_base.py",
        "direction_accuracy": report["direction_accuracy"],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **adapter_arrays(trained), meta=np.array(json.dumps(meta, sort_keys=True)))
    check = random.Random(0).sample(val, min(args.check, len(val)))
    model = DeciderModel(args.out)
    packed = model.predict_proba([(evaluated[i].statement, evaluated[i].passage) for i in check])
    agree = float(np.mean(packed[:, :2].argmax(1) == probs[check].argmax(1))) if check else math.nan
    summary = {
        "out": str(args.out),
        "bytes": args.out.stat().st_size,
        "temperature": meta["temperature"],
        "int8_side_agreement": round(agree, 4),
    }
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
