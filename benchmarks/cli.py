"""What every training and eval script shares at its command line: the commit it ran at, `--set key=value`
overrides, and the printed table of results."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def commit() -> str:
    """Short commit of the checkout (with '+dirty' when it has uncommitted changes), or 'unknown'."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
        return sha + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def print_table(title: str, rows: list[tuple[str, Any]]) -> None:
    """Results as a two-column table under a title that names the commit (floats to four places)."""
    width = max(len(name) for name, _ in rows)
    print(f"\n{title}  (commit {commit()})")
    print("-" * (width + 16))
    for name, value in rows:
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        print(f"{name:<{width}}  {shown}")


def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    """`--set key=value` items as settings: a value that reads as JSON is parsed, anything else stays a string."""
    overrides: dict[str, Any] = {}
    for item in items or []:
        key, _, raw = item.partition("=")
        try:
            overrides[key] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key] = raw
    return overrides
