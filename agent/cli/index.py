"""`sparkit index build`: the offline literature index, embedded or in a Qdrant collection; registered on the main
parser by agent.cli."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent.common.terminal import terminal_safe
from agent.errors import InputError


def _cmd_index_build(args: argparse.Namespace) -> int:
    from agent.api import make_context
    from agent.backend.corpus import corpus_of
    from agent.config import sparkit_home
    from agent.errors import CorpusError
    from agent.tools.index.index_refresh import refresh_index
    from agent.tools.index.local_index import LocalIndex, default_index_dir

    settings = make_context(None, corpus_path=args.path)
    corpus = corpus_of(settings.corpus, download=True)
    if corpus is None or not corpus.exists():
        raise CorpusError(f"corpus not found: {args.path or '(none configured)'}")
    if args.engine == "qdrant":
        return _build_qdrant(args, settings.corpus, corpus)
    target = Path(args.index_dir).expanduser() if args.index_dir else default_index_dir(corpus, sparkit_home())
    if args.background:
        return _background_sentences(target)
    # nothing to do on a current index, an update of a changed corpus, a build otherwise; a build reports on stderr
    refresh = refresh_index(corpus, target, force=args.force, progress=False if args.quiet else None)
    print(terminal_safe(refresh.line(), 1000))
    if args.sentences:
        _sentences(refresh.index or LocalIndex.load(target), target, force=args.force, quiet=args.quiet)
    return 0


def _sentences(index: Any, target: Path, *, force: bool, quiet: bool) -> None:
    """The index's sentence store: nothing when current, a copy of another home's build of the same corpus, else
    encoded (one build per corpus on the machine; it stops when SPARKIT_HOME or the index folder goes)."""
    import time

    from agent.common.terminal import StepProgress
    from agent.config import sparkit_home
    from agent.tools.index.offline_rerank import SentenceStore
    from agent.tools.index.sentence_build import build_sentence_store

    if not force and SentenceStore.load(index, SentenceStore.path_for(index, sparkit_home())) is not None:
        print("sentence store up to date: nothing to do")
        return
    started = time.time()
    sentences = SentenceStore.size_of(index)
    step = StepProgress(
        "encoding",
        sentences,
        unit="sentences",
        start=f"encoding {sentences:,} sentences for the reranker's sentence store (minutes) ...",
        enabled=False if quiet else None,
    )
    with step:
        outcome = build_sentence_store(index, target, sparkit_home(), force=force, on_progress=step.advance)
    if outcome == "current":
        print("sentence store up to date: nothing to do (built meanwhile by another process)")
    elif outcome == "copied":
        print("sentence store copied from another home's build of the same corpus")
    else:
        print(f"sentence store built in {time.time() - started:.0f} s")


def _background_sentences(target: Path) -> int:
    """`--background`: the sentence store of an index that exists, as an answer starts it; never the index itself,
    so a build whose home was deleted before it began does not recreate it."""
    from agent.config import sparkit_home
    from agent.tools.index.local_index import LocalIndex
    from agent.tools.index.sentence_build import StoreBuildStopped

    home = sparkit_home()
    if not home.is_dir() or not (target / "manifest.json").is_file():
        raise StoreBuildStopped(f"stopped the sentence store build: no index at {target} in {home}")
    _sentences(LocalIndex.load(target), target, force=False, quiet=True)
    return 0


def _build_qdrant(args: argparse.Namespace, settings: Any, corpus: Path) -> int:
    """`sparkit index build --engine qdrant`: stream the corpus into a Qdrant collection (resumable)."""
    from agent.backend.search_parts import qdrant_location
    from agent.tools.index.qdrant_build import build_qdrant_index, prime_from_embedded

    if args.sentences:
        raise InputError("--sentences builds the embedded index's sentence store; it has no Qdrant counterpart")
    chosen = settings.model_copy(
        update={
            k: v
            for k, v in {
                "qdrant_url": args.qdrant_url,
                "qdrant_path": args.qdrant_path,
                "qdrant_collection": args.collection,
            }.items()
            if v
        }
    )
    location = qdrant_location(chosen, corpus)
    if args.vectors_from:
        primed = prime_from_embedded(Path(args.vectors_from).expanduser())
        print(f"reusing the vectors of {primed:,} records from {args.vectors_from}", file=sys.stderr)
    report = build_qdrant_index(
        corpus,
        location,
        batch_size=args.batch_size,
        progress=False if args.quiet else None,
        shards=args.shards,
        replicas=args.replicas,
        force=args.force,
    )
    search = f"; search it with --set index=qdrant --set qdrant_collection={report.collection}"
    print(terminal_safe(report.line() + ("" if report.up_to_date or report.updated else search), 1000))
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {value}")
    return value


def add_index_commands(sub: argparse._SubParsersAction) -> None:
    """`index build`, with the Qdrant engine's options."""
    index_p = sub.add_parser("index", help="the offline literature index")
    index_sub = index_p.add_subparsers(dest="index_command", required=True)
    build_p = index_sub.add_parser(
        "build", help="build the index of a JSONL corpus, or update it when the corpus changed (nothing when current)"
    )
    build_p.add_argument("path", nargs="?", help="corpus JSONL (default: the configured or shared SciFact corpus)")
    build_p.add_argument("--index-dir", help="where to write it")
    build_p.add_argument(
        "--sentences",
        action="store_true",
        help="also encode every sentence for the reranker (10-20 min on 2 cores for SciFact; +0.015 nDCG@10)",
    )
    build_p.add_argument(
        "--engine",
        choices=("embedded", "qdrant"),
        default="embedded",
        help="embedded (default: a folder read whole into memory) or qdrant (a collection, "
        "for millions of "
        "records; the path may also be PubMed .xml.gz files or a folder of them; resumable)",
    )
    build_p.add_argument(
        "--qdrant-url", help="qdrant: the server (API key from QDRANT_API_KEY); default: a Qdrant Edge folder"
    )
    build_p.add_argument(
        "--qdrant-path", help="qdrant without a server: the Qdrant Edge folder (default $SPARKIT_HOME/qdrant)"
    )
    build_p.add_argument("--collection", help="qdrant: the collection (default sparkit-<corpus name>-<digest>)")
    build_p.add_argument(
        "--batch-size", type=_positive, default=256, help="qdrant: records per encoding call and upsert"
    )
    build_p.add_argument(
        "--shards", type=_positive, default=1, help="qdrant: shard_number of a new collection (a cluster)"
    )
    build_p.add_argument("--replicas", type=_positive, default=1, help="qdrant: replication_factor of a new collection")
    build_p.add_argument(
        "--vectors-from",
        metavar="INDEX_DIR",
        help="qdrant: reuse the vectors of an embedded index of the same texts instead of encoding them",
    )
    build_p.add_argument(
        "--force",
        action="store_true",
        help="rebuild even when the index is current (same corpus digest, encoder and tokeniser: else nothing is done)",
    )
    build_p.add_argument(
        "--background",
        action="store_true",
        help="only the sentence store of an existing index, as an answer starts it: never builds the index, stops "
        "when SPARKIT_HOME or the index folder is removed",
    )
    build_p.add_argument("--quiet", "-q", action="store_true")
    build_p.set_defaults(handler=_cmd_index_build)
