"""The packaged all-MiniLM-L6-v2 packed small enough to travel to a lent GPU machine, and unpacked there.

    python -m training.encoder_pack pack --out .gpu/minilm --texts-from-pool .gpu/pool.jsonl.gz --nli-dir ../shared/data
    # on the GPU; SPARKIT_ENCODER_DIR=/tmp/minilm
    python -m training.encoder_pack unpack --pack .gpu/minilm --to /tmp/minilm

The lent machine has no registry package and takes at most 64 MiB of repository and data per call, and the model is
91 MB. What training keeps frozen must arrive exact, what it trains need not: the word embeddings (frozen) travel as
float16 and only the rows of tokens the training and validation texts use (unpacked, the other rows are zero and a
guard refuses a batch that reaches one); every other matrix trains, so it travels as int8 with a scale per row.
A judge trained there is read here over the package's own float32 embeddings, which differ from the float16 rows by
rounding only.
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from agent.judges.cross import SCALE_SUFFIX, dequantized

WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"
TOKENIZER_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")
PACK_FILE = "pack.npz"


def used_token_ids(tokenizer, texts: Iterable[str], chunk: int = 4096) -> np.ndarray:
    """Every token id the tokenizer gives these texts, plus its special tokens."""
    ids: set[int] = set(tokenizer.all_special_ids)
    batch: list[str] = []
    for text in texts:
        batch.append(text)
        if len(batch) == chunk:
            ids.update(i for row in tokenizer(batch, add_special_tokens=False)["input_ids"] for i in row)
            batch = []
    if batch:
        ids.update(i for row in tokenizer(batch, add_special_tokens=False)["input_ids"] for i in row)
    return np.array(sorted(ids), dtype=np.int32)


def pack(model_dir: Path, out: Path, texts: Iterable[str]) -> dict[str, float]:
    """Write `out/` (tokenizer files + pack.npz); returns sizes in MB and the share of the vocabulary kept."""
    from safetensors.numpy import load_file
    from transformers import AutoTokenizer

    weights = load_file(str(model_dir / "model.safetensors"))
    rows = used_token_ids(AutoTokenizer.from_pretrained(str(model_dir)), texts)
    arrays: dict[str, np.ndarray] = {"word_rows": rows, "vocab_size": np.array(weights[WORD_EMBEDDINGS].shape[0])}
    for name, value in weights.items():
        if name == WORD_EMBEDDINGS:
            arrays[name] = value[rows].astype(np.float16)
        elif value.ndim == 2 and value.shape[0] > 2:  # matrices that train: int8 with a float32 scale per row
            scale = np.maximum(np.abs(value).max(axis=1), 1e-8) / 127.0
            arrays[name] = np.round(value / scale[:, None]).astype(np.int8)
            arrays[name + SCALE_SUFFIX] = scale.astype(np.float32)
        else:
            arrays[name] = value.astype(np.float32)
    out.mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copy(model_dir / name, out / name)
    np.savez_compressed(out / PACK_FILE, **arrays)
    return {
        "pack_mb": round((out / PACK_FILE).stat().st_size / 1e6, 2),
        "vocab_kept": round(len(rows) / int(arrays["vocab_size"]), 3),
    }


def unpack(packed: Path, to: Path) -> np.ndarray:
    """A loadable all-MiniLM-L6-v2 folder at `to`; returns the token ids whose embedding rows are real."""
    from safetensors.numpy import save_file

    arrays = dict(np.load(packed / PACK_FILE))
    rows = arrays.pop("word_rows")
    vocab = int(arrays.pop("vocab_size"))
    word_rows = arrays.pop(WORD_EMBEDDINGS)
    weights = dequantized(arrays)  # the judge loader's: int8 times its row scales, the rest as float32
    weights[WORD_EMBEDDINGS] = np.zeros((vocab, word_rows.shape[1]), dtype=np.float32)
    weights[WORD_EMBEDDINGS][rows] = word_rows.astype(np.float32)
    to.mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copy(packed / name, to / name)
    save_file(weights, str(to / "model.safetensors"))
    (to / "word_rows.json").write_text(json.dumps(rows.tolist()))
    return rows


def guard_rows(network, rows: np.ndarray) -> None:
    """Refuse (raise) any forward pass that looks up a word embedding the pack left out."""
    import torch

    allowed = torch.zeros(network.encoder.config.vocab_size, dtype=torch.bool)
    allowed[torch.from_numpy(rows.astype(np.int64))] = True

    def check(module, inputs):
        ids = inputs[0]
        mask = allowed.to(ids.device)
        if not bool(mask[ids].all()):
            missing = sorted(set(ids[~mask[ids]].tolist()))[:10]
            raise RuntimeError(f"token ids {missing} have no packed embedding row: pack with these texts too")

    network.encoder.embeddings.word_embeddings.register_forward_pre_hook(check)


def _texts(pool_file: Path | None, data_dir: Path | None, extra: list[Path]) -> Iterable[str]:
    from training.contrast import contrast_pairs
    from training.nli import load_nli
    from training.train_judge import read_pool

    if pool_file:
        pool, _ = read_pool(pool_file)
        train = [p for p in pool if p.split == "train"]
        for p in pool + contrast_pairs(train):
            yield p.statement
            yield p.passage
    if data_dir:
        for p in load_nli(data_dir):
            yield p.statement
            yield p.passage
    for path in extra:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                yield from (str(row[k]) for k in ("statement", "passage", "claim", "evidence") if k in row)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.encoder_pack", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--pool-file", type=Path, help="the pool whose texts (and contrast pairs) train")
    p.add_argument("--data-dir", type=Path, help="../shared/data, for the NLI texts")
    p.add_argument("--texts", type=Path, nargs="*", default=[], help="JSON lines files with statement / passage fields")
    u = sub.add_parser("unpack")
    u.add_argument("--pack", type=Path, required=True)
    u.add_argument("--to", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "pack":
        from agent.tools.models.encoder import packaged_model_path

        print(pack(Path(packaged_model_path()), args.out, _texts(args.pool_file, args.data_dir, args.texts)))
    else:
        print(f"unpacked {len(unpack(args.pack, args.to))} embedding rows to {args.to}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
