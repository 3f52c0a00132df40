"""The `sparkit` command: ask, verify, resume, index build, library, mcp, presets, trace list/show/html.

Errors print one line to stderr and exit 2 (bad input, missing corpus, corrupt index, configuration)
or 1 (anything else); no traceback reaches the user. With --json an error is also a JSON object on stdout,
{"error": ..., "exit_code": ...}. Everything printed (answers, JSON, errors, progress, log lines)
passes through `agent.terminal` (secrets redacted, escape sequences and control characters removed), so neither a key
nor a crafted title or question can reach the terminal raw. `ask`, `verify` and `resume` print the run id first (on
stderr, before any work, so a killed run can be resumed) and write a local trace by default (`--no-trace` or
SPARKIT_TRACE=0 to skip it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from agent.errors import InputError, SparkitError
from agent.llm.flags import add_llm_arguments, llm_overrides
from agent.terminal import terminal_safe, terminal_text
from agent.text import truncate


def _parse_set(items: list[str]) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise InputError(f"--set needs NAME=VALUE, e.g. --set max_claims=3 (got {terminal_safe(item, 60)!r})")
        key, raw = item.split("=", 1)
        try:
            overrides[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key.strip()] = raw
    return overrides


def _settings_overrides(args: argparse.Namespace) -> dict[str, Any]:
    overrides = _parse_set(args.set or [])
    if args.preset:
        overrides["preset"] = args.preset
    if args.live:
        overrides["backend"] = "live"
    if args.offline:
        overrides["backend"] = "offline"
    if args.llm:
        overrides["llm"] = args.llm
    overrides.update({k: v for k, v in llm_overrides(args).items() if k != "llm"})  # the chat-model roles (issue 17)
    if args.corpus:
        overrides["corpus_path"] = str(Path(args.corpus).expanduser().resolve())
    if args.index_dir:
        overrides["index_dir"] = str(Path(args.index_dir).expanduser().resolve())
    if args.library_only:
        overrides["use_corpus"] = False
    return overrides


def _progress(event: dict[str, Any]) -> None:
    """One progress line on stderr: a node starting, still working (heartbeat), cut, or what it did."""
    node = event.get("node", "?")
    kind = event.get("event")
    if kind == "start":
        text = f"  [{node}] ..." if node != "run" else f"run {event.get('run_id')}"
    elif kind == "heartbeat":
        waiting = f": {event['waiting_for']}" if event.get("waiting_for") else ""
        text = f"  [{node}] still working ({event.get('elapsed_s', 0):.0f} s){waiting}"
    else:
        details = ", ".join(
            f"{k}={_short(v)}" for k, v in event.items() if k not in ("node", "event") and v not in (None, [], {})
        )
        text = f"  [{node}] {kind + ': ' if kind else ''}{details}"
    print(terminal_safe(text, 400), file=sys.stderr, flush=True)


def _run_events(args: argparse.Namespace) -> Callable[[dict[str, Any]], None]:
    """The run's event handler: the run id always (first, before any work), progress lines unless --quiet."""

    def on_event(event: dict[str, Any]) -> None:
        if event.get("node") == "run" and event.get("event") == "start":
            run_id = event.get("run_id")
            print(
                terminal_safe(f"sparkit: run {run_id} (if it stops: sparkit resume {run_id})", 200),
                file=sys.stderr,
                flush=True,
            )
        elif not args.quiet:
            _progress(event)

    return on_event


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        shown = "; ".join(_short(v) for v in value[:4])
        return f"[{shown}{'; …' if len(value) > 4 else ''}]"
    text = str(value)
    return truncate(text, 70)


def _confidence_shown(answer: Any) -> str:
    """The status line's confidence, saying what it is the confidence in: an answer's is its probability of being
    right; an abstention's is the probability that "insufficient evidence" is right, and is labelled so (a bare
    "confidence 0.56" on every abstention read as a confidence in some answer); a run stopped by its budget without
    an answer or by an error shows none."""
    if not answer.abstained and answer.status.value != "ERROR":
        return f"   confidence {answer.confidence:.2f}"
    if answer.status.value == "INSUFFICIENT_EVIDENCE":
        return f"   confidence that the evidence is insufficient {answer.confidence:.2f}"
    return ""


def render(answer: Any) -> str:
    """Human-readable answer: verdict, confidence, hypotheses, claims, references."""
    task = "yes/no" if answer.task == "polar" else answer.task
    lines = [f"Status: {answer.status.value}{_confidence_shown(answer)}   task {task}   run {answer.run_id}"]
    if answer.searched:
        lines.append(f"Searched: {answer.searched}")
    if answer.verdict:
        lines.append(f"Verdict: {answer.verdict}")
    lines += ["", f"Answer: {answer.answer}"]
    for sentence in answer.sentences:
        lines.append(f"  - {sentence.text} [{', '.join(sentence.citations)}]")
    if answer.faithfulness is not None:
        lines.append(
            f"Faithfulness: {answer.faithfulness:.2f} of the cited statements are supported by the passages they cite"
        )
    if answer.hypotheses:
        lines += ["", "Hypotheses weighed (score, support / contradiction, verdict):"]
        for h in sorted(answer.hypotheses, key=lambda h: -h.score):
            lines.append(
                f"  {h.id} {h.score:+.3f}  {h.support:.2f}/{h.contradiction:.2f}  {h.verdict.value:<13} "
                f"{truncate(h.text, 110)}"
            )
    if (
        answer.adjudication is not None
    ):  # issue 17: the model's choice, the evidence's, and the blend the answer follows
        adj = answer.adjudication
        blend = ", ".join(f"{hid} {value:.2f}" for hid, value in sorted(adj.blend.items(), key=lambda kv: -kv[1]))
        lines += [
            "",
            f"Adjudication ({adj.model}): model chose {adj.model_choice or 'to abstain'}, evidence favours "
            f"{adj.evidence_choice or 'none'}; "
            "blend "
            f"{blend}{' (contested)' if adj.contested else ''}{' (abstained)' if adj.abstained else ''}",
        ]
        for j in adj.judgements:
            lines.append(
                f"  {j.hypothesis_id} {j.judgement:<9} p={j.probability:.2f} [{', '.join(j.evidence)}] {j.reason[:90]}"
            )
    if answer.claims:
        lines += ["", "Claims checked:"]
        for c in answer.claims:
            note = f"; {c.note}" if c.note else ""
            lines.append(
                f"  {c.verdict.value:<10} {truncate(c.text, 110)}  (support {c.supporting}, refute {c.refuting}{note})"
            )
    if answer.citations:
        lines += ["", "References:"]
        for c in answer.citations:
            where = c.where()
            lines.append(f"  [{c.id}] {c.title} ({c.year or 'n.d.'}) {c.source}{', ' + where if where else ''}")
    u = answer.usage
    lines += [
        "",
        f"Stopped: {answer.stop_reason}",
        f"Usage: {u.llm_calls} LLM calls, {u.source_calls} source calls, {u.cache_hits} cache hits, "
        f"${u.cost_usd:.4f}, {u.wall_time_s:.1f} s"
        + (f" (and {u.setup_s:.1f} s of set-up before it: models, index)" if u.setup_s >= 0.1 else ""),
    ]
    if u.by_node:
        from agent.tracing.render_text import render_by_node

        lines += ["Usage by node:", render_by_node(u.by_node)]
    if u.fallbacks:
        lines.append(f"Fallbacks: {'; '.join(u.fallbacks[:5])}")
    for note in answer.notes[:8]:
        lines.append(f"Note: {note}")
    return "\n".join(lines)


def _trace_flag(args: argparse.Namespace) -> bool:
    """CLI runs trace unless --no-trace or SPARKIT_TRACE=0."""
    from agent.tracing import tracing_enabled

    return False if args.no_trace else tracing_enabled(None, default=True)


def _print_answer(answer: Any, args: argparse.Namespace, traced: bool) -> int:
    from agent.tracing import trace_path

    print(terminal_text(answer.model_dump_json() if args.json else render(answer)))
    if traced and trace_path(answer.run_id).exists():
        print(
            f"trace: {trace_path(answer.run_id)}  (sparkit trace show {answer.run_id}; "
            f"sparkit trace html {answer.run_id} -o trace.html)",
            file=sys.stderr,
        )
    return 1 if answer.status.value == "ERROR" else 0


def _cmd_ask(args: argparse.Namespace, mode: str) -> int:
    from agent.api import ask

    on_event = _run_events(args)  # the run id and progress go to stderr; with --json stdout stays one JSON object
    documents = None
    if getattr(args, "documents", None):
        from agent.tools.local_index import load_corpus

        documents = [
            r.model_dump(include={"id", "title", "abstract", "year", "doi"}) for r in load_corpus(Path(args.documents))
        ]
    traced = _trace_flag(args)
    answer = ask(
        args.text,
        getattr(args, "option", None) or None,
        mode=mode,
        on_event=on_event,
        documents=documents,
        trace=traced,
        **_settings_overrides(args),
    )
    return _print_answer(answer, args, traced)


def _cmd_resume(args: argparse.Namespace) -> int:
    from agent.api import resume

    traced = _trace_flag(args)
    answer = resume(args.run_id, on_event=_run_events(args), trace=traced, **_settings_overrides(args))
    return _print_answer(answer, args, traced)


def _cmd_trace_list(args: argparse.Namespace) -> int:
    from agent.tracing import list_traces
    from agent.tracing.render_text import render_list

    entries = list_traces()[: args.limit or None]
    print(terminal_text(json.dumps(entries) if args.json else render_list(entries)))
    return 0


def _cmd_trace_show(args: argparse.Namespace) -> int:
    from agent.tracing.render_text import render_show
    from agent.tracing.view import load_view

    print(terminal_text(render_show(load_view(args.run_id))))
    return 0


def _cmd_trace_html(args: argparse.Namespace) -> int:
    from agent.tracing import redact
    from agent.tracing.render_html import render_html
    from agent.tracing.view import load_view

    view = load_view(args.run_id)
    target = Path(args.output).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(redact(render_html(view)), encoding="utf-8")
    print(terminal_safe(f"wrote {target} (run {view.run_id}; self-contained, opens offline)", 1000))
    return 0


def _cmd_index_build(args: argparse.Namespace) -> int:
    import time

    from agent.api import make_context
    from agent.config import sparkit_home
    from agent.corpus import corpus_of
    from agent.errors import CorpusError
    from agent.tools.local_index import LocalIndex, default_index_dir

    settings = make_context(None, corpus_path=args.path)
    corpus = corpus_of(settings.corpus, download=True)
    if corpus is None or not corpus.exists():
        raise CorpusError(f"corpus not found: {args.path or '(none configured)'}")
    if args.engine == "qdrant":
        return _build_qdrant(args, settings.corpus, corpus)
    target = Path(args.index_dir).expanduser() if args.index_dir else default_index_dir(corpus, sparkit_home())
    index = LocalIndex.build(corpus, target, progress=False if args.quiet else None)  # it reports itself on stderr
    print(f"indexed {len(index.records)} documents: {target}")
    if args.sentences:
        from agent.tools.offline_rerank import SentenceStore

        started = time.time()
        print("encoding every sentence for the reranker's sentence store (minutes) ...", file=sys.stderr)
        SentenceStore.build(index, progress=not args.quiet)
        print(f"sentence store built in {time.time() - started:.0f} s")
    return 0


def _build_qdrant(args: argparse.Namespace, settings: Any, corpus: Path) -> int:
    """`sparkit index build --engine qdrant`: stream the corpus into a Qdrant collection (resumable)."""
    from agent.backend import qdrant_location
    from agent.tools.qdrant_index import build_qdrant_index, prime_from_embedded

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
    )
    print(
        terminal_safe(
            f"indexed {report.documents:,} documents ({report.added:,} added, {report.skipped:,} already there): "
            f"collection {report.collection} ({report.where}); search it with --set index=qdrant"
            f" --set qdrant_collection={report.collection}",
            1000,
        )
    )
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {value}")
    return value


def _cmd_presets(args: argparse.Namespace) -> int:
    from agent.config import GROUPS, PRESETS, preset_description

    for name, tree in PRESETS.items():
        values = ", ".join(
            f"{group}.{field}={value}" for group, fields in tree.items() for field, value in fields.items()
        )
        print(f"{name}: {preset_description(name)}" + (f"\n  {values}" if values else ""))
    if args.verbose:
        print("\nEvery setting, by group (--set GROUP.FIELD=VALUE, or the field's name alone):")
        for group, model in GROUPS.items():
            print(f"{group}: {model.__doc__}")
            for field, info in model.model_fields.items():
                default = info.get_default(call_default_factory=True)
                print(f"  {group}.{field} = {default}  -- {info.description}")
    return 0


def _cmd_config(args: argparse.Namespace) -> int:
    """Show the configuration in $SPARKIT_HOME/config.json, or set / unset one key."""
    from agent.config import sparkit_home
    from agent.corpus import CONFIG_KEYS, config_path, configured_corpus, load_config, set_config

    home = sparkit_home()
    if args.unset:
        set_config(home, args.unset, None)
    elif args.key and args.value:
        set_config(home, args.key, args.value)
    elif args.key and args.key not in CONFIG_KEYS:
        raise InputError(f"unknown config key {args.key!r}; known: {', '.join(CONFIG_KEYS)}")
    data = load_config(home)
    print(terminal_safe(f"{config_path(home)}:", 1000))
    for key, what in CONFIG_KEYS.items():
        print(terminal_safe(f"  {key} = {data.get(key, '(not set)')}  -- {what}", 1000))
    corpus = configured_corpus(home)
    print(terminal_safe(f"offline corpus in use: {corpus or 'none set up: SciFact is downloaded on first use'}", 1000))
    return 0


def _cmd_mcp(args: argparse.Namespace) -> int:
    from agent.mcp_server import serve

    serve()
    return 0


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON answer object on stdout")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    from agent.config import DEFAULT_PRESET

    parser.add_argument("--preset", help=f"fast, default or research_max (default: {DEFAULT_PRESET})")
    backend = parser.add_mutually_exclusive_group()
    backend.add_argument("--offline", action="store_true", help="local index + packaged models (the default)")
    backend.add_argument("--live", action="store_true", help="real literature APIs and hosted models")
    parser.add_argument("--llm", help="chat model as provider:model (e.g. anthropic:claude-haiku-4-5)")
    add_llm_arguments(parser, with_llm=False)  # per-role models and call settings (issue 17)
    parser.add_argument("--corpus", help="JSONL corpus for the offline index")
    parser.add_argument("--index-dir", help="where the offline index lives")
    parser.add_argument(
        "--library-only",
        action="store_true",
        help="search your library alone, not the corpus beside it (--set use_corpus=false)",
    )
    parser.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="any setting, e.g. --set verification.max_claims=3 or --set max_claims=3 (sparkit presets -v lists them)",
    )
    parser.add_argument(
        "--no-trace",
        action="store_true",
        help="do not write a local trace (default: $SPARKIT_HOME/traces/RUN_ID.jsonl)",
    )


class _UsageError(Exception):
    """argparse's usage error, raised instead of exiting so that main() reports it as every other error."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """argparse with the usage printed as usual, and its error left to main() (exit 2; JSON on stdout with --json)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise _UsageError(self.prog, message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="sparkit", description="Grounded, hypothesis-driven answers from the scientific literature.")
    sub = parser.add_subparsers(dest="command", required=True)

    ask_p = sub.add_parser("ask", help="answer a question (open, yes/no or multiple choice)")
    ask_p.add_argument("text", metavar="QUESTION")
    ask_p.add_argument(
        "--option",
        action="append",
        help='a multiple-choice option (repeat); options written into the question, "(A) x or (B) y", are read too',
    )
    ask_p.add_argument("--documents", help="answer only from these documents (JSONL, corpus format)")
    _add_run_options(ask_p)
    ask_p.set_defaults(handler=lambda a: _cmd_ask(a, "ask"))

    verify_p = sub.add_parser("verify", help="check a claim: SUPPORT / CONTRADICT / NOT_ENOUGH_INFO")
    verify_p.add_argument("text", metavar="CLAIM")
    verify_p.add_argument("--documents", help="check only against these documents (JSONL)")
    _add_run_options(verify_p)
    verify_p.set_defaults(handler=lambda a: _cmd_ask(a, "verify"))

    resume_p = sub.add_parser("resume", help="continue a checkpointed run that stopped")
    resume_p.add_argument("run_id")
    _add_run_options(resume_p)
    resume_p.set_defaults(handler=_cmd_resume)

    index_p = sub.add_parser("index", help="the offline literature index")
    index_sub = index_p.add_subparsers(dest="index_command", required=True)
    build_p = index_sub.add_parser("build", help="build (or rebuild) the index of a JSONL corpus")
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
    build_p.add_argument("--qdrant-url", help="qdrant: the server (API key from QDRANT_API_KEY); default: local mode")
    build_p.add_argument("--qdrant-path", help="qdrant local mode: the folder (default $SPARKIT_HOME/qdrant)")
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
    build_p.add_argument("--quiet", "-q", action="store_true")
    build_p.set_defaults(handler=_cmd_index_build)

    from agent.library.cli import add_library_commands

    add_library_commands(sub)
    from agent.service.cli import add_service_commands

    add_service_commands(sub)
    mcp_p = sub.add_parser("mcp", help="serve ask, verify, search_library and add_to_library to MCP clients over stdio")
    mcp_p.set_defaults(handler=_cmd_mcp)

    config_p = sub.add_parser(
        "config", help="choose defaults once, e.g. the offline corpus: sparkit config corpus PATH"
    )
    config_p.add_argument("key", nargs="?", help="corpus")
    config_p.add_argument("value", nargs="?", help="the new value (a path for corpus)")
    config_p.add_argument("--unset", metavar="KEY", help="remove a key")
    config_p.set_defaults(handler=_cmd_config)

    presets_p = sub.add_parser("presets", help="list the named presets (and with -v every setting)")
    presets_p.add_argument("--verbose", "-v", action="store_true")
    presets_p.set_defaults(handler=_cmd_presets)

    trace_p = sub.add_parser("trace", help="review local run traces (list, show, html)")
    trace_sub = trace_p.add_subparsers(dest="trace_command", required=True)
    list_p = trace_sub.add_parser("list", help="traced runs, newest first")
    list_p.add_argument("--limit", "-n", type=int, default=20, help="show at most N runs (0: all; default 20)")
    list_p.add_argument("--json", action="store_true", help="print the index entries as JSON")
    list_p.set_defaults(handler=_cmd_trace_list)
    show_p = trace_sub.add_parser("show", help="run tree with timings, cost and route decisions")
    show_p.add_argument("run_id", metavar="RUN_ID", help="run id, a unique prefix, or 'latest'")
    show_p.set_defaults(handler=_cmd_trace_show)
    html_p = trace_sub.add_parser("html", help="export one self-contained HTML page for a run")
    html_p.add_argument("run_id", metavar="RUN_ID", help="run id, a unique prefix, or 'latest'")
    html_p.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write the page")
    html_p.set_defaults(handler=_cmd_trace_html)
    return parser


def _failed(line: str, message: str, exit_code: int, as_json: bool) -> int:
    """An error: its one line on stderr and, with --json, `{"error": ..., "exit_code": ...}` on stdout, so a caller
    that reads stdout as JSON reads the failure too (not an empty stdout)."""
    print(terminal_safe(line, 1000), file=sys.stderr)
    if as_json:
        print(json.dumps({"error": terminal_safe(message, 1000), "exit_code": exit_code}))
    return exit_code


def main(argv: list[str] | None = None) -> int:
    from agent.redact import install_log_redaction, redact

    try:
        args = build_parser().parse_args(argv)
    except _UsageError as exc:  # before the arguments are parsed, --json is read from the command line itself
        return _failed(f"{exc.prog}: error: {exc}", str(exc), 2, "--json" in (sys.argv[1:] if argv is None else argv))
    if getattr(args, "quiet", False):  # no progress on stderr, set-up steps' included
        from agent.terminal import PROGRESS_ENV

        os.environ[PROGRESS_ENV] = "0"
    install_log_redaction()
    as_json = bool(getattr(args, "json", False))
    try:
        return args.handler(args)
    except SparkitError as exc:
        return _failed(f"sparkit: error: {exc}", str(exc), exc.exit_code, as_json)
    except KeyboardInterrupt:
        return _failed("sparkit: interrupted", "interrupted", 130, as_json)
    except Exception as exc:
        message = redact(str(exc)).splitlines()[0][:300] if str(exc) else ""
        return _failed(
            f"sparkit: error: {type(exc).__name__}: {message}", f"{type(exc).__name__}: {message}", 1, as_json
        )


if __name__ == "__main__":
    sys.exit(main())
