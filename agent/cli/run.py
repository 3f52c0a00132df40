"""`sparkit ask|verify|resume`: the commands that run the agent, their shared options and the progress lines on
stderr (the answer itself is rendered by agent/answer/text.py); registered on the main parser by agent.cli."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.answer.text import render
from agent.common.terminal import terminal_safe, terminal_text
from agent.common.text import truncate
from agent.errors import InputError
from agent.llm.flags import add_llm_arguments, llm_overrides


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
        from agent.tools.corpus_records import load_corpus

        documents = [
            r.model_dump(include={"id", "title", "abstract", "year", "doi"}) for r in load_corpus(Path(args.documents))
        ]
    traced = _trace_flag(args)
    overrides = _settings_overrides(args)
    reviewer = None
    if args.review:  # the court's ledger reviewed at the terminal before the answer (agent/cli/review.py)
        from agent.cli.review import terminal_reviewer

        overrides["review"], reviewer = True, terminal_reviewer()
    answer = ask(
        args.text,
        getattr(args, "option", None) or None,
        mode=mode,
        on_event=on_event,
        documents=documents,
        trace=traced,
        reviewer=reviewer,
        **overrides,
    )
    code = _print_answer(answer, args, traced)
    if documents is None and code == 0:  # the answer is out: the reranker's sentence store may be built now
        try:
            started = sentence_store_after_answer(overrides)
        except OSError as exc:  # the answer stands; the store is tried again after the next one
            started = f"the sentence store's background build did not start ({exc.strerror or exc})"
        if started:
            print(terminal_safe(started, 400), file=sys.stderr)
    return code


def _cmd_resume(args: argparse.Namespace) -> int:
    from agent.api import resume

    traced = _trace_flag(args)
    reviewer = None
    if args.review:  # a run waiting at its review point: the ledger reviewed at the terminal
        from agent.cli.review import terminal_reviewer

        reviewer = terminal_reviewer()
    answer = resume(
        args.run_id, on_event=_run_events(args), trace=traced, reviewer=reviewer, **_settings_overrides(args)
    )
    return _print_answer(answer, args, traced)


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
    parser.add_argument(
        "--review",
        action="store_true",
        help="stop after the court: its ledger on stderr, your edits from stdin (strike P / read P against / "
        "add RECORD_ID), then the verdict from the edited ledger",
    )


def add_run_commands(sub: argparse._SubParsersAction) -> None:
    """`ask`, `verify` and `resume`, with the run options they share."""
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


def sentence_store_after_answer(overrides: dict[str, Any]) -> str | None:
    """For a `sparkit ask` on the embedded index of a corpus: start its sentence store's build
    (agent/tools/background_store.py)."""
    from agent.api import make_context
    from agent.backend.corpus import corpus_of
    from agent.config import sparkit_home
    from agent.tools.background_store import start_sentence_store
    from agent.tools.local_index import default_index_dir

    settings = make_context(None, **overrides).corpus
    if settings.backend != "offline" or settings.index == "qdrant" or not settings.use_corpus:
        return None
    corpus = corpus_of(settings)  # never downloads: the run found (or fetched) it already
    if corpus is None or not corpus.is_file():
        return None
    index_dir = (
        Path(settings.index_dir).expanduser() if settings.index_dir else default_index_dir(corpus, sparkit_home())
    )
    return start_sentence_store(corpus, index_dir)
