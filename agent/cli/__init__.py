"""The `sparkit` command: ask, verify, resume, index build, library, mcp, presets, trace list/show/html. This module
is the main parser; each group of commands is registered on it by its own module: `run` (ask, verify, resume),
`index`, `review` (the court's ledger at the terminal, corrections), `trace`, and agent/library/cli.py,
agent/service/cli.py beside their subsystems.

Errors print one line to stderr and exit 2 (bad input, missing corpus, corrupt index, configuration) or 1 (anything
else); no traceback reaches the user. With --json an error is also a JSON object on stdout, {"error": ..., "exit_code":
...}. Everything printed (answers, JSON, errors, progress, log lines) passes through `agent.common.terminal` (secrets
redacted, escape sequences and control characters removed), so neither a key nor a crafted title or question can reach
the terminal raw. `ask`, `verify` and `resume` print the run id first (on stderr, before any work, so a killed run can
be resumed) and write a local trace by default (`--no-trace` or SPARKIT_TRACE=0 to skip it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import NoReturn

from agent.cli.index import add_index_commands
from agent.cli.review import add_corrections_command
from agent.cli.run import add_run_commands
from agent.cli.trace import add_trace_commands
from agent.common.terminal import terminal_safe
from agent.errors import InputError, SparkitError


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
    from agent.backend.corpus import CONFIG_KEYS, config_path, configured_corpus, load_config, set_config
    from agent.config import sparkit_home

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
    from agent.api.mcp_server import serve

    serve()
    return 0


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

    add_run_commands(sub)
    add_corrections_command(sub)
    add_index_commands(sub)

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

    add_trace_commands(sub)
    return parser


def _failed(line: str, message: str, exit_code: int, as_json: bool) -> int:
    """An error: its one line on stderr and, with --json, `{"error": ..., "exit_code": ...}` on stdout, so a caller
    that reads stdout as JSON reads the failure too (not an empty stdout)."""
    print(terminal_safe(line, 1000), file=sys.stderr)
    if as_json:
        print(json.dumps({"error": terminal_safe(message, 1000), "exit_code": exit_code}))
    return exit_code


def main(argv: list[str] | None = None) -> int:
    from agent.common.redact import install_log_redaction, redact

    try:
        args = build_parser().parse_args(argv)
    except _UsageError as exc:  # before the arguments are parsed, --json is read from the command line itself
        return _failed(f"{exc.prog}: error: {exc}", str(exc), 2, "--json" in (sys.argv[1:] if argv is None else argv))
    if getattr(args, "quiet", False):  # no progress on stderr, set-up steps' included
        from agent.common.terminal import PROGRESS_ENV

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
