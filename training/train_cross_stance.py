"""Fine-tune the cross-encoder stance judge and write agent/models/stance_cross.npz.

    python -m training.train_cross_stance                  # ~16 min on 2 CPU cores; reproduces the shipped file
    python -m training.train_cross_stance --no-write --epochs 1 --max-train 2000   # a quick smoke run
    # + weak conclusion pairs (not shipped, evals/HISTORY.md)
    python -m training.train_cross_stance --conclusions --out /tmp/x.npz
    # + PubMedQA pairs (not shipped, evals/HISTORY.md)
    python -m training.train_cross_stance --pubmedqa --bias 0,0,0 --out /tmp/x.npz

Data and splits are those of the MLP judge (training/dataset.py, benchmarks/splits.py): sentence-level SciFact pairs
(rationales, sentences of cited abstracts without rationales, BM25-retrieved non-cited sentences; the
non-rationale sentences of evidence abstracts are dropped unless --keep-evidence-neutrals), HealthVer dev, and
negation-augmented copies of training pairs. The network is trained on the training part only; the epoch is
chosen and the temperature fitted on the validation part; the held-out part is scored once at the end.
Only the fine-tuned top layers, the token-type embeddings and the head are written, as float16.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

import numpy as np
import torch

from agent.judges.cross import (
    CrossStanceJudge,
    build_network,
    default_cross_weights_path,
    load_tokenizer,
    pair_logits,
    tokenize,
)
from agent.judges.packaged import softmax
from training.conclusions import conclusion_pairs
from training.dataset import (
    LABELS,
    StancePair,
    default_data_dir,
    healthver_pairs,
    load_scifact,
    negation_augment,
    pubmedqa_pairs,
    scifact_pairs,
)
from training.train_stance import LABEL_INDEX, _format, fit_temperature, selection_score, slice_report

SENTENCE_KINDS = ("rationale", "cited", "retrieved", "healthver", "negated")


def trainable_names(network: torch.nn.Module, layers: int) -> list[str]:
    """Parameters that are fine-tuned (and shipped): the top `layers` encoder layers, token types, the head."""
    n_layers = network.encoder.config.num_hidden_layers
    top = tuple(f"encoder.encoder.layer.{i}." for i in range(n_layers - layers, n_layers))
    return [
        n
        for n, _ in network.named_parameters()
        if n.startswith(top) or n.startswith("head.") or "token_type_embeddings" in n
    ]


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


def logits_of(network, tokenizer, pairs: list[StancePair]) -> np.ndarray:
    return pair_logits(network, tokenizer, [(p.statement, p.passage) for p in pairs], batch=64)


def evidence_sentences(data_dir: Path) -> set[tuple[str, str]]:
    """(claim, sentence) for every sentence of an abstract that is evidence for the claim."""
    corpus, claims = load_scifact(data_dir)
    return {
        (c["claim"], sentence) for c in claims for doc in c["evidence"] for sentence in corpus[int(doc)]["abstract"]
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=default_data_dir())
    parser.add_argument("--out", type=Path, default=default_cross_weights_path())
    parser.add_argument("--layers", type=int, default=5, help="top encoder layers fine-tuned and shipped")
    parser.add_argument("--epochs", type=int, default=3, help="the epoch with the best validation score is kept")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--max-train", type=int, default=None, help="subsample the training pairs (smoke runs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--bias",
        default="1,0,0",
        help="log-prior shift added to the S,C,N logits after temperature "
        "(1,0,0: best of 1/2 end to end on the validation claims, evals.scifact --split val)",
    )
    parser.add_argument(
        "--keep-evidence-neutrals",
        action="store_true",
        help="keep the NEUTRAL pairs from abstracts that are evidence for the claim (dropped "
        "by default: "
        "their label is the annotators' rationale choice, not the abstract's stance)",
    )
    parser.add_argument(
        "--conclusions",
        action="store_true",
        help="add the weakly labelled conclusion pairs of training/conclusions.py to the training part",
    )
    parser.add_argument(
        "--pubmedqa",
        action="store_true",
        help="add the PubMedQA PQA-L yes/no pairs of even PMIDs (training/dataset.py) to the "
        "training and validation parts",
    )
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--report", type=Path, default=None)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    started = time.perf_counter()

    pairs = [p for p in scifact_pairs(args.data_dir) + healthver_pairs(args.data_dir) if p.kind in SENTENCE_KINDS]
    pairs += pubmedqa_pairs(args.data_dir) if args.pubmedqa else []
    if not args.keep_evidence_neutrals:
        evidence = evidence_sentences(args.data_dir)
        pairs = [p for p in pairs if not (p.kind == "cited" and (p.statement, p.passage) in evidence)]
    augment = negation_augment([p for p in pairs if p.split == "train"])
    weak = conclusion_pairs(args.data_dir, seed=args.seed) if args.conclusions else []
    train = [p for p in pairs if p.split == "train"] + augment + weak
    if args.max_train:
        train = rng.sample(train, min(args.max_train, len(train)))
    val = [p for p in pairs if p.split == "val"]
    heldout = [p for p in pairs if p.split == "heldout"]
    counts = {label: sum(p.label == label for p in train) for label in LABELS}
    pubmedqa_train = sum(p.kind == "pubmedqa" for p in train)
    print(
        f"pairs: train {len(train)} {counts} (negation-augmented {len(augment)}, conclusions {len(weak)}, "
        f"pubmedqa {pubmedqa_train}), val {len(val)}, heldout {len(heldout)}",
        flush=True,
    )

    network, tokenizer = build_network(), load_tokenizer()
    names = set(trainable_names(network, args.layers))
    for name, param in network.named_parameters():
        param.requires_grad = name in names
    head = [p for n, p in network.named_parameters() if n.startswith("head.")]
    body = [p for n, p in network.named_parameters() if n in names and not n.startswith("head.")]
    optimiser = torch.optim.AdamW(
        [{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}], weight_decay=0.01
    )
    steps = args.epochs * math.ceil(len(train) / args.batch)
    warmup = max(1, steps // 10)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / (steps - warmup)))
    )
    # Inverse square-root class frequency: NEUTRAL is the bulk, CONTRADICT the rarest and most wanted.
    weights = torch.tensor([(len(train) / (3 * max(counts[label], 1))) ** 0.5 for label in LABELS], dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)

    best: tuple[float, int, dict[str, torch.Tensor]] | None = None
    history = []
    network.train()
    for epoch in range(1, args.epochs + 1):
        t0, total = time.perf_counter(), 0.0
        epoch_batches = batches(train, args.batch, rng)
        for step, batch in enumerate(epoch_batches, 1):
            enc = tokenize(tokenizer, [(p.statement, p.passage) for p in batch])
            y = torch.tensor([LABEL_INDEX[p.label] for p in batch])
            loss = loss_fn(network(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(body + head, 1.0)
            optimiser.step()
            scheduler.step()
            optimiser.zero_grad()
            total += float(loss.detach())
            if step % 100 == 0:
                print(
                    f"  epoch {epoch} step {step}/{len(epoch_batches)} loss {total / step:.4f} "
                    f"{step * args.batch / (time.perf_counter() - t0):.0f} pairs/s",
                    flush=True,
                )
        val_logits = logits_of(network, tokenizer, val)
        report = slice_report(val, softmax(val_logits))
        val_score = selection_score(report)
        history.append(
            {"epoch": epoch, "val_score": round(val_score, 4), "seconds": round(time.perf_counter() - t0, 1)}
        )
        print(
            f"epoch {epoch}: loss {total / len(epoch_batches):.4f}, val score {val_score:.4f}; {_format(report)}",
            flush=True,
        )
        if best is None or val_score > best[0]:
            state = {n: p.detach().clone() for n, p in network.named_parameters() if n in names}
            best = (val_score, epoch, state)

    assert best is not None
    network.load_state_dict({**network.state_dict(), **best[2]})
    val_logits = logits_of(network, tokenizer, val)
    temperature = fit_temperature(val_logits, np.array([LABEL_INDEX[p.label] for p in val]))
    held_report = slice_report(heldout, softmax(logits_of(network, tokenizer, heldout), temperature))
    print(f"selected epoch {best[1]} (val {best[0]:.4f}), T={temperature}")
    print(f"held-out: {_format(held_report)}", flush=True)
    results = {
        "history": history,
        "epoch": best[1],
        "temperature": temperature,
        "heldout": held_report,
        "train_pairs": len(train),
        "layers": args.layers,
        "lr": args.lr,
        "batch": args.batch,
        "seconds": round(time.perf_counter() - started, 1),
    }
    if not args.no_write:
        meta = {k: results[k] for k in ("epoch", "train_pairs", "layers", "lr", "batch")}
        bias = np.array([float(x) for x in args.bias.split(",")], dtype=np.float32)
        meta.update(
            bias=bias.tolist(),
            skip_evidence_neutrals=not args.keep_evidence_neutrals,
            conclusion_pairs=len(weak),
            pubmedqa_pairs=pubmedqa_train,
            seed=args.seed,
            split_rules="benchmarks/splits.py",
            heldout_macro_f1={k: v["macro_f1"] for k, v in held_report.items()},
        )
        arrays = {n: t.numpy().astype(np.float16) for n, t in best[2].items()}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            args.out,
            **arrays,
            labels=np.array(LABELS),
            temperature=np.array(temperature),
            bias=bias,
            meta=np.array(json.dumps(meta, sort_keys=True)),
        )
        print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
        judge = CrossStanceJudge(args.out)
        sample = [(p.statement, p.passage) for p in heldout if p.kind != "healthver"][:200]
        judge.probabilities(sample[:2])
        t0 = time.perf_counter()
        judge.probabilities(sample)
        results["benchmark_pairs_per_second"] = round(len(sample) / (time.perf_counter() - t0), 1)
        print(f"benchmark: {results['benchmark_pairs_per_second']} pairs/s on {len(sample)} held-out pairs")
    if args.report:
        args.report.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
