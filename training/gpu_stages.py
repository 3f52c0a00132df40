"""Train the stance judge's stages on a lent GPU in one call, each stage measured on its own.

    python -m training.gpu_stages --pack .gpu/minilm --pool-file .gpu/pool.jsonl.gz --data-dir .gpu/data --out $OUT
    # the same script on a tiny slice here
    python -m training.gpu_stages ... --device cpu --max-train 64 --configs pool

Runs `training.train_judge` once per configuration, all from the packaged all-MiniLM-L6-v2 (every layer but the word
embeddings trains), in the order that measures what each stage adds: the pool alone; the pool with the in-domain
contrast pairs (training/contrast.py); a general-NLI warm-up before that (training/nli.py); then an in-domain stage
(SciFact, HealthVer, Check-COVID) over the last one's best epoch; and the same pool + contrast stage over the shipped
judge. Each writes its weights (int8) and report; every report, with each judge's reading-check score (the
cross-encoder alone on evals/data/reading_check.jsonl), is merged into `reports.json` after each configuration, so a
call stopped at its time limit still returns what finished. Configurations that would not finish inside `--budget-s`
are skipped and named.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import traceback
from pathlib import Path

COMMON = ("--batch", "32", "--max-len", "160", "--lr", "4e-5", "--seed", "0", "--int8")
CONFIGS: dict[str, tuple[str, ...]] = {
    "pool": ("--epochs", "2"),
    "pool_contrast": ("--epochs", "2", "--contrast", "13000"),
    "nli_pool_contrast": ("--nli-epochs", "1", "--epochs", "2", "--contrast", "13000"),
    "nli_pool_contrast_indomain": (
        "--epochs",
        "0",
        "--stage2",
        "scifact,healthver,check_covid",
        "--stage2-epochs",
        "1",
    ),
    "nli_pool_contrast_3ep": ("--nli-epochs", "1", "--epochs", "3", "--contrast", "13000"),
    "packaged_pool_contrast": ("--init", "agent/models/stance_cross.npz", "--epochs", "2", "--contrast", "13000"),
}
CONTINUES = {"nli_pool_contrast_indomain": "nli_pool_contrast"}  # starts from that run's best saved epoch
READING_CHECK = Path(__file__).resolve().parents[1] / "evals" / "data" / "reading_check.jsonl"


def reading_check_score(weights: Path) -> dict[str, float]:
    """Accuracy of the cross-encoder alone on the reading check pairs, overall and per category."""
    from agent.judges.cross import CrossStanceModel
    from agent.records import STANCE_LABELS

    rows = [json.loads(line) for line in READING_CHECK.read_text(encoding="utf-8").splitlines() if line.strip()]
    proba = CrossStanceModel(weights).predict_proba([(r["statement"], r["passage"]) for r in rows])
    right = [STANCE_LABELS[int(k)] == r["label"] for k, r in zip(proba.argmax(axis=1), rows, strict=True)]
    by: dict[str, list[bool]] = {}
    for ok, r in zip(right, rows, strict=True):
        by.setdefault(r["category"], []).append(ok)
    return {
        "overall": round(sum(right) / len(right), 4),
        **{c: round(sum(v) / len(v), 3) for c, v in sorted(by.items())},
    }


def best_epoch_file(checkpoints: Path, report: dict) -> Path:
    """The saved state of the pooled epoch the run selected."""
    pooled = [h for h in report["history"] if h.get("stage") == "pooled"]
    best = max(pooled, key=lambda h: h["selection"])
    return checkpoints / f"pooled-epoch{best['epoch']}.pt"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.gpu_stages",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--pack", type=Path, required=True, help="training.encoder_pack's folder")
    parser.add_argument("--pool-file", type=Path, required=True)
    parser.add_argument("--data-dir", type=Path, required=True, help="a folder with nli/ in it")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--budget-s", type=float, default=420.0)
    parser.add_argument("--max-train", type=int, help="subsample training pairs (a smoke run on CPU)")
    parser.add_argument("--max-val", type=int, help="subsample validation pairs (a smoke run on CPU)")
    parser.add_argument(
        "--work-dir",
        type=Path,
        default=Path("/tmp/sparkit-stages"),
        help="the unpacked encoder, each configuration's checkpoints and reports (scratch, not brought back)",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    from training import encoder_pack, train_judge

    encoder_dir = args.work_dir / "minilm"
    rows = encoder_pack.unpack(args.pack, encoder_dir)
    os.environ["SPARKIT_ENCODER_DIR"] = str(encoder_dir)
    build = train_judge.build_network

    def guarded_network():
        network = build()
        encoder_pack.guard_rows(network, rows)
        return network

    train_judge.build_network = guarded_network  # every run refuses a token the pack left out
    import torch

    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    args.out.mkdir(parents=True, exist_ok=True)
    merged: dict[str, dict] = {
        "device": torch.cuda.get_device_name(0) if args.device == "cuda" else "cpu",
        "runs": {},
        "skipped": [],
    }
    seconds: dict[str, float] = {}
    for name in args.configs.split(","):
        elapsed = time.perf_counter() - started
        estimate = max(seconds.values(), default=0.0)
        if elapsed + estimate > args.budget_s:
            merged["skipped"].append(name)
            continue
        extra: list[str] = []
        if name in CONTINUES:
            parent = merged["runs"].get(CONTINUES[name])
            if parent is None or "report" not in parent:
                merged["skipped"].append(name)
                continue
            extra = [
                "--init-checkpoint",
                str(best_epoch_file(args.work_dir / "checkpoints" / CONTINUES[name], parent["report"])),
            ]
        report_path = args.work_dir / "reports" / f"{name}.json"
        weights = args.out / f"{name}.npz"
        argv_run = [
            *COMMON,
            *CONFIGS[name],
            *extra,
            "--device",
            args.device,
            "--pool-file",
            str(args.pool_file),
            "--data-dir",
            str(args.data_dir),
            "--checkpoint-dir",
            str(args.work_dir / "checkpoints" / name),
            "--out",
            str(weights),
            "--report",
            str(report_path),
            "--threads",
            str(os.cpu_count() or 2),
        ]
        if args.max_train:
            argv_run += ["--max-train", str(args.max_train)]
        if args.max_val:
            argv_run += ["--max-val", str(args.max_val)]
        t0 = time.perf_counter()
        print(f"=== {name}: {' '.join(argv_run)}", flush=True)
        try:
            train_judge.main(argv_run)
        except Exception as exc:  # one configuration's failure is recorded and the others still run in this call
            merged["runs"][name] = {
                "argv": argv_run,
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(),
            }
            print(merged["runs"][name]["traceback"], flush=True)
            continue
        seconds[name] = time.perf_counter() - t0
        merged["runs"][name] = {
            "argv": argv_run,
            "seconds": round(seconds[name], 1),
            "report": json.loads(report_path.read_text()),
            "reading_check_cross_alone": reading_check_score(weights),
        }
        print(
            f"=== {name}: {seconds[name]:.0f} s, selection {merged['runs'][name]['report']['selection']}, "
            f"reading check {merged['runs'][name]['reading_check_cross_alone']['overall']}",
            flush=True,
        )
        (args.out / "reports.json").write_text(json.dumps(merged, indent=1))
    (args.out / "reports.json").write_text(json.dumps(merged, indent=1))
    print(f"done in {time.perf_counter() - started:.0f} s; skipped {merged['skipped']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
