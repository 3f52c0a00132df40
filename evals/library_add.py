r"""How long adding papers to a large library takes: the incremental path, not a rebuild.

    SPARKIT_HOME=/tmp/sk-library sparkit library add ../shared/data/scifact/corpus.jsonl     # once: the 5,183 abstracts
    python -m evals.library_add --library /tmp/sk-library/library --corpus ../shared/data/scifact/corpus.jsonl \
        --papers 10 [--json]

The library is copied to a temporary folder first (the original is not touched). Ten two-column PDFs are typeset
from SciFact text (titles marked as new studies, so each is a new document), then added twice over: in this
process with the encoder already loaded (the add itself), and with the `sparkit library add` command in a fresh
process (what a user waits for: Python start, model load, parse, encode, write).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evals.pdf_samples import sample_papers, write_reportlab
from evals.report import publish


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--library", type=Path, required=True, help="an existing library folder (e.g. one holding the SciFact corpus)"
    )
    parser.add_argument("--corpus", type=Path, required=True, help="SciFact corpus.jsonl (the sample papers' text)")
    parser.add_argument("--papers", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from agent.library.store import Library
    from agent.tools.models.encoder import shared_encoder

    with tempfile.TemporaryDirectory() as tmp:
        pdfs = Path(tmp) / "pdfs"
        pdfs.mkdir()
        for i, paper in enumerate(sample_papers(args.corpus, args.papers, seed=23)):
            paper.title = f"{paper.title}: a replication (sample {i + 1})"
            write_reportlab(paper, pdfs / f"{paper.key}.pdf")
        results: dict[str, float] = {}
        for mode in ("in-process", "cli"):
            copy = Path(tmp) / f"library-{mode}"
            shutil.copytree(args.library, copy)
            library = Library(copy)
            before = library.stats()
            if mode == "in-process":
                library.index()  # loads the index (and primes the encoder cache) as a long-lived process would have
                shared_encoder().encode(["warm-up"])
                started = time.perf_counter()
                report = library.add([pdfs])
                seconds = time.perf_counter() - started
                results["passages encoded"] = float(report.passages_added)
                for stage, spent in report.timings.items():
                    results[f"in-process: seconds {stage}"] = spent
            else:
                started = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "agent.cli", "library", "add", str(pdfs), "--library", str(copy), "-q"],
                    check=True,
                    env={**os.environ},
                    stdout=subprocess.DEVNULL,
                )
                seconds = time.perf_counter() - started
            after = library.stats()
            results[f"{mode}: seconds to add {args.papers} PDFs"] = seconds
            results[f"{mode}: documents before / after"] = f"{before['documents']} / {after['documents']}"
            results[f"{mode}: index records before / after"] = f"{before['passages']} / {after['passages']}"
    publish("Adding PDFs to a library", results, {"papers": args.papers, "library": str(args.library)}, args.json)


if __name__ == "__main__":
    main()
