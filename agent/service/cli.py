"""`sparkit serve`, `sparkit worker` and `sparkit users`: the team server's commands (the `service` extra).

A database that is down or refuses the password stops each with one line naming what failed and how to fix it
(exit 2)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import Any

from agent.errors import ConfigurationError

_EXTRA = "the team server needs the service extra: pip install -e '.[service]'"


def _require_extra() -> None:
    try:
        import procrastinate  # noqa: F401
        import psycopg  # noqa: F401
        import uvicorn  # noqa: F401
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver  # noqa: F401
    except ImportError as exc:
        raise ConfigurationError(f"{_EXTRA} ({exc.name} is missing)") from None


class _CurrentStderr(logging.StreamHandler):
    """Writes to whatever sys.stderr is when a line is logged (a test that captured stderr may have closed the old)."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:  # StreamHandler.__init__ assigns it; the property decides
        return None


def _log_to_stderr() -> None:
    """INFO lines with time on stderr, through the project's redacting filter (no key reaches a log)."""
    from agent.common.redact import install_log_redaction

    root = logging.getLogger()
    for old in list(root.handlers):  # main() installed a WARNING-level one; a server logs its runs at INFO
        root.removeHandler(old)
    handler = _CurrentStderr()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    install_log_redaction()


def _cmd_serve(args: argparse.Namespace) -> int:
    _require_extra()
    import uvicorn

    from agent.service.database import database_url, ensure_schema
    from agent.service.http_api import create_app
    from agent.service.service import Service

    url = database_url(args.database_url)
    asyncio.run(ensure_schema(url))  # fails here, in one line, when the database cannot be used
    _log_to_stderr()
    service = Service(url, max_body_bytes=args.max_body_bytes)
    uvicorn.run(create_app(service), host=args.host, port=args.port, log_level="info", log_config=None)
    return 0


def _cmd_worker(args: argparse.Namespace) -> int:
    _require_extra()
    from agent.service.database import database_url, ensure_schema
    from agent.service.worker import WorkerOptions, run_worker

    url = database_url(args.database_url)
    asyncio.run(ensure_schema(url))  # fails here, in one line, when the database cannot be used
    _log_to_stderr()
    options = WorkerOptions(
        name=args.name or "",
        concurrency=args.concurrency,
        heartbeat_s=args.heartbeat_s,
        stalled_after_s=args.stalled_after_s,
        prune_after_s=args.prune_after_s,
        imports=tuple(args.imports or ()),
        poll_s=args.poll_s,
    )
    asyncio.run(run_worker(url, options))
    return 0


def _cmd_users(args: argparse.Namespace) -> int:
    _require_extra()
    from agent.service.database import database_url

    url = database_url(args.database_url)
    return asyncio.run(_users(url, args))


async def _users(url: str, args: argparse.Namespace) -> int:
    import psycopg

    from agent.service import keys
    from agent.service.database import ensure_schema, unavailable

    await ensure_schema(url)
    try:
        conn = await psycopg.AsyncConnection.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise unavailable(url, exc) from None
    async with conn:
        if args.users_command == "list":
            for name, active in await keys.list_users(conn):
                print(f"{name}\t{'active' if active else 'revoked'}")
        elif args.users_command == "revoke":
            await keys.revoke(conn, args.name)
            print(f"revoked {args.name}'s key", file=sys.stderr)
        else:
            key = await (
                keys.add_user(conn, args.name) if args.users_command == "add" else keys.rotate_key(conn, args.name)
            )
            print(key)
            print(
                f"{args.name}'s API key (shown once; only its hash is stored): send it as the x-api-key header",
                file=sys.stderr,
            )
    return 0


def add_service_commands(sub: Any) -> None:
    """serve, worker and users, on the CLI's subparsers."""
    database = argparse.ArgumentParser(add_help=False)
    database.add_argument(
        "--database-url", help="postgresql://USER:PASSWORD@HOST:PORT/DB (default: $SPARKIT_DATABASE_URL)"
    )

    serve_p = sub.add_parser(
        "serve", parents=[database], help="the team server: an HTTP API (LangGraph Server shape) over PostgreSQL"
    )
    serve_p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve_p.add_argument("--port", type=int, default=2024, help="port (default 2024, as langgraph dev)")
    serve_p.add_argument(
        "--max-body-bytes", type=int, default=1_000_000, help="largest request body accepted (413 beyond)"
    )
    serve_p.set_defaults(handler=_cmd_serve)

    worker_p = sub.add_parser(
        "worker", parents=[database], help="execute queued runs of the team server (start any number)"
    )
    worker_p.add_argument("--concurrency", type=int, default=1, help="runs at once in this process (default 1)")
    worker_p.add_argument("--name", help="worker name in logs (default host:pid)")
    worker_p.add_argument("--heartbeat-s", type=float, default=5.0, help="seconds between heartbeats and stall checks")
    worker_p.add_argument(
        "--stalled-after-s",
        type=float,
        default=30.0,
        help="a worker silent this long is gone: its runs go back to the queue (default 30)",
    )
    worker_p.add_argument(
        "--prune-after-s",
        type=float,
        default=7 * 86400.0,
        help="keep only the last checkpoint of threads idle this long (default 7 days)",
    )
    worker_p.add_argument("--poll-s", type=float, default=2.0, help="queue poll interval besides LISTEN/NOTIFY")
    worker_p.add_argument(
        "--import",
        dest="imports",
        action="append",
        metavar="MODULE",
        help="import a module first (one that registers a custom backend)",
    )
    worker_p.set_defaults(handler=_cmd_worker)

    users_p = sub.add_parser("users", help="the team server's users and their API keys")
    users_sub = users_p.add_subparsers(dest="users_command", required=True)
    for name, text in (
        ("add", "create a user; prints their key once"),
        ("rotate", "give a user a new key"),
        ("revoke", "disable a user's key"),
    ):
        p = users_sub.add_parser(name, parents=[database], help=text)
        p.add_argument("name")
    users_sub.add_parser("list", parents=[database], help="users and whether their key is active")
    users_p.set_defaults(handler=_cmd_users)
