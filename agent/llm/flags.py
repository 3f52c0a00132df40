"""Command-line options for the chat-model roles, shared by `sparkit` and the evals (so a user with keys can reproduce
the tables with the same models per role): --llm-fast, --llm-strong, --llm-second, --llm-base-url,
--llm-structured-output, --llm-deadline and --llm-role ROLE.KEY=VALUE for any per-role call setting."""

from __future__ import annotations

import argparse
import json
from typing import Any

from agent.errors import InputError


def add_llm_arguments(parser: argparse.ArgumentParser, with_llm: bool = True) -> None:
    if with_llm:
        parser.add_argument(
            "--llm", help="chat model for every role as provider:model (e.g. anthropic:claude-haiku-4-5)"
        )
    parser.add_argument(
        "--llm-fast", help="model for planning, queries, hypotheses and stance batches (default: --llm)"
    )
    parser.add_argument("--llm-strong", help="model for adjudication and synthesis (default: --llm)")
    parser.add_argument("--llm-second", help="second provider whose hypotheses are compared with the first's")
    parser.add_argument(
        "--llm-base-url", help="OpenAI-compatible server for openai: models (e.g. http://127.0.0.1:8080/v1)"
    )
    parser.add_argument(
        "--llm-structured-output",
        choices=["auto", "json_schema", "function_calling", "json_mode", "prompt"],
        help="how structured output is requested (default auto: per provider)",
    )
    parser.add_argument(
        "--llm-deadline", type=float, metavar="SECONDS", help="per-call deadline of a role before it falls back offline"
    )
    parser.add_argument(
        "--llm-role",
        action="append",
        metavar="ROLE.KEY=VALUE",
        help="a per-role call setting, e.g. --llm-role strong.timeout_s=120 or --llm-role fast.n_ctx=4096 (repeat)",
    )


def llm_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the options above give (only those set)."""
    names = {
        "llm": "llm",
        "llm_fast": "llm_fast",
        "llm_strong": "llm_strong",
        "llm_second": "llm_second",
        "llm_base_url": "llm_base_url",
        "llm_structured_output": "llm_structured_output",
        "llm_deadline": "llm_deadline_s",
    }
    overrides = {
        setting: getattr(args, attr) for attr, setting in names.items() if getattr(args, attr, None) is not None
    }
    roles: dict[str, dict[str, Any]] = {}
    for item in getattr(args, "llm_role", None) or []:
        key, sep, raw = item.partition("=")
        role, dot, field = key.partition(".")
        if not sep or not dot:
            raise InputError(f"--llm-role needs ROLE.KEY=VALUE, e.g. strong.timeout_s=120 (got {item!r})")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        roles.setdefault(role.strip(), {})[field.strip()] = value
    if roles:
        overrides["llm_roles"] = roles
    return overrides
