"""`sparkit trace list|show|html`: reviewing local run traces; registered on the main parser by agent.cli."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agent.common.terminal import terminal_safe, terminal_text


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


def add_trace_commands(sub: argparse._SubParsersAction) -> None:
    """`trace list`, `trace show` and `trace html`."""
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
