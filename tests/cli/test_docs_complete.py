"""The documentation says what the code does: docs/cli.md names every command the parser has and every field of the
JSON answer (the README promises both), the operating points docs/how-it-works.md gives are the verdict model
file's, and neither the docs nor `--help` carry the project's history (stops, issues, seeds: evals/HISTORY.md)."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from agent.cli import build_parser
from agent.records import Answer

REPO = Path(__file__).resolve().parents[2]
CLI_DOC = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
HISTORY_WORDS = re.compile(r"\b(stop|issue|seed) #?\d+", re.I)


def commands(parser: argparse.ArgumentParser, prefix: str = "sparkit") -> list[str]:
    """Every leaf command of the parser ('sparkit library add', ...), and every group that is one itself."""
    found: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                below = commands(sub, f"{prefix} {name}")
                found += below or [f"{prefix} {name}"]
    return found


def test_cli_doc_names_every_command():
    listed = commands(build_parser())
    assert len(listed) > 20
    missing = []
    for command in listed:
        *group, leaf = command.split()
        # a row may name a group's commands together: `sparkit users add` / `rotate` / `revoke` / `list`
        together = re.search(rf"`{re.escape(' '.join(group))} [a-z]+`(?: / `[a-z]+`)*", CLI_DOC)
        named = f"`{command}" in CLI_DOC or (together is not None and f"`{leaf}`" in together.group(0))
        if not named:
            missing.append(command)
    assert not missing, f"docs/cli.md does not name: {missing}"


def test_cli_doc_names_every_field_of_the_json_answer():
    section = CLI_DOC.split("## What `--json` prints", 1)[1].split("\n## ", 1)[0]
    missing = [field for field in Answer.model_fields if f"`{field}`" not in section]
    assert not missing, f"docs/cli.md's JSON section does not name: {missing}"


def test_the_documented_operating_points_are_the_verdict_files():
    settings = json.loads((REPO / "agent" / "models" / "verdict.json").read_text())["claim"]
    text = " ".join((REPO / "docs" / "how-it-works.md").read_text(encoding="utf-8").split())
    corpus, documents = settings["corpus"]["threshold"], settings["documents"]["threshold"]
    stated = f"{corpus:.2f} for a claim searched in a corpus, {documents:.2f} for one checked against given documents"
    assert stated in text, f"docs/how-it-works.md should say: {stated}"


@pytest.mark.parametrize("page", sorted(p.name for p in (REPO / "docs").glob("*.md")))
def test_no_project_history_in_the_docs(page):
    found = HISTORY_WORDS.findall((REPO / "docs" / page).read_text(encoding="utf-8"))
    assert not found, f"docs/{page} names the project's history ({found}); it belongs in evals/HISTORY.md"


def test_no_project_history_in_help():
    parser = build_parser()
    texts = [parser.format_help()]
    stack = [parser]
    while stack:
        for action in stack.pop()._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    texts.append(sub.format_help())
                    stack.append(sub)
    found = sorted({m.group(0) for text in texts for m in HISTORY_WORDS.finditer(" ".join(text.split()))})
    assert not found, f"`--help` names the project's history: {found}"
