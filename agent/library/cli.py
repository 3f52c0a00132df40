"""`sparkit library add|list|remove|stats|fetch`: the subcommands, registered on the main parser by agent.cli.

Everything printed passes through `terminal_safe` (titles and file names come from the user's data). `add`
exits 0 when anything was read, 2 when every input was skipped (each with its one-line reason).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agent.common.terminal import Progress, terminal_safe

if TYPE_CHECKING:
    from agent.library.models import AddReport
    from agent.library.store import Library


def _library(args: argparse.Namespace) -> Library:
    from agent.library.store import Library

    return Library(args.library) if getattr(args, "library", None) else Library()


def _progress(args: argparse.Namespace) -> Progress:
    if getattr(args, "quiet", False):
        return Progress(enabled=False)
    return Progress(enabled=True if getattr(args, "progress", False) else None)  # None: only on a terminal


def _print_report(report: AddReport, args: argparse.Namespace, verb: str) -> int:
    if args.json:
        print(terminal_safe(report.model_dump_json(), 10**7))
    else:
        for skip in report.skipped:
            print(terminal_safe(f"skipped {skip.path}: {skip.reason}", 400), file=sys.stderr)
        for note in report.notes:
            print(terminal_safe(f"note: {note}", 400), file=sys.stderr)
        if report.duplicates and not (report.added or report.updated or report.skipped):
            print(  # a second add of the same input: nothing was indexed or written, and one line says so
                f"the library is up to date: the {len(set(report.duplicates))} document(s) given are already in it; "
                f"nothing to index ({report.seconds:.1f} s; the library has {report.documents} document(s))"
            )
            return 0
        print(
            f"{verb} {len(report.added)} document(s), updated {len(report.updated)}, "
            f"{len(set(report.duplicates))} already in the library, "
            f"{len(report.skipped)} skipped; {report.passages_added} passage(s) indexed in {report.seconds:.1f} s; "
            f"the library has {report.documents} document(s)"
        )
    read_anything = report.added or report.updated or report.duplicates
    return 0 if read_anything or not report.skipped else 2


def cmd_add(args: argparse.Namespace) -> int:
    report = _library(args).add([Path(p) for p in args.paths], progress=_progress(args))
    return _print_report(report, args, "added")


def cmd_fetch(args: argparse.Namespace) -> int:
    import asyncio

    from agent.library.fetch import fetch_into_library

    report = asyncio.run(
        fetch_into_library(
            _library(args), args.query, limit=args.limit, sources=args.source or None, progress=_progress(args)
        )
    )
    return _print_report(report, args, "fetched")


def cmd_list(args: argparse.Namespace) -> int:
    docs = _library(args).documents()
    if args.json:
        print(terminal_safe(json.dumps([d.model_dump(exclude={"abstract", "references"}) for d in docs]), 10**8))
        return 0
    for d in docs:
        extent = f"{d.pages} p, {d.passages} passages" if d.full_text else "abstract"
        print(terminal_safe(f"{d.id:<28} {d.year or '    '}  {d.kind:<8} {extent:<22} {d.title}", 200))
    print(f"{len(docs)} document(s)", file=sys.stderr)
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    removed = _library(args).remove(args.ids, progress=_progress(args))
    print(terminal_safe(f"removed {len(removed)} document(s): {', '.join(removed)}", 1000))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    stats = _library(args).stats()
    if args.json:
        print(json.dumps(stats))
    else:
        for key, value in stats.items():
            print(terminal_safe(f"{key:<16} {value}", 300))
    return 0


def add_library_commands(sub: argparse._SubParsersAction) -> None:
    library_p = sub.add_parser(
        "library", help="your own papers: add PDFs, bibliographies, Zotero, JSONL; list, remove, stats, fetch"
    )
    library_sub = library_p.add_subparsers(dest="library_command", required=True)

    def common(parser: argparse.ArgumentParser, *, progress: bool = False) -> None:
        parser.add_argument("--library", metavar="DIR", help="the library folder (default: $SPARKIT_HOME/library)")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        if progress:
            parser.add_argument(
                "--progress", action="store_true", help="progress bars on stderr even when it is not a terminal"
            )
            parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars")

    add_p = library_sub.add_parser(
        "add", help="add PDFs, folders, .bib, .ris, Better BibTeX/CSL .json, a Zotero data folder or a JSONL corpus"
    )
    add_p.add_argument("paths", nargs="+", metavar="PATH")
    common(add_p, progress=True)
    add_p.set_defaults(handler=cmd_add)

    fetch_p = library_sub.add_parser(
        "fetch", help="search the live sources and add their records and abstracts (needs network; cached)"
    )
    fetch_p.add_argument("query")
    fetch_p.add_argument("--limit", "-n", type=int, default=20, help="documents to add at most (default 20)")
    fetch_p.add_argument(
        "--source",
        action="append",
        choices=["arxiv", "semantic_scholar", "openalex", "crossref"],
        help="a live source to ask (repeat; default: all four)",
    )
    common(fetch_p, progress=True)
    fetch_p.set_defaults(handler=cmd_fetch)

    list_p = library_sub.add_parser("list", help="the library's documents")
    common(list_p)
    list_p.set_defaults(handler=cmd_list)

    remove_p = library_sub.add_parser("remove", help="remove documents by id (or DOI)")
    remove_p.add_argument("ids", nargs="+", metavar="ID")
    common(remove_p, progress=True)
    remove_p.set_defaults(handler=cmd_remove)

    stats_p = library_sub.add_parser("stats", help="documents, passages, pages and index size")
    common(stats_p)
    stats_p.set_defaults(handler=cmd_stats)
