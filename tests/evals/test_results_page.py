"""evals/README.md is the results page: short enough to read at a glance, every number with the commit it was measured
at and a command that names a real module, every link into the history pointing at a section that exists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

EVALS = Path(__file__).resolve().parents[2] / "evals"
PAGE = EVALS / "README.md"
HISTORY = EVALS / "HISTORY.md"
MAX_LINES = 150


def results_rows() -> list[list[str]]:
    """The cells of each data row of the table under '## Today's numbers'."""
    section = PAGE.read_text(encoding="utf-8").split("## Today's numbers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_results_page_fits_on_two_screens():
    assert len(PAGE.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_every_benchmark_row_names_the_commit_it_was_measured_at_and_a_command():
    rows = results_rows()
    assert len(rows) >= 12
    for benchmark, number, commit, command in rows:
        assert re.search(r"\b[0-9a-f]{7,40}\b", commit), f"{benchmark}: no commit in {commit!r}"
        assert number and command, benchmark


def test_the_commands_name_modules_that_exist():
    modules = set(re.findall(r"python -m ((?:evals|training)\.\w+)", PAGE.read_text(encoding="utf-8")))
    assert modules
    assert not {m for m in modules if importlib.util.find_spec(m) is None}


def test_every_link_into_the_history_points_at_one_of_its_sections():
    anchors = {
        slug(line.lstrip("#")) for line in HISTORY.read_text(encoding="utf-8").splitlines() if line.startswith("#")
    }
    links = set(re.findall(r"HISTORY\.md#([\w\-]+)", PAGE.read_text(encoding="utf-8")))
    assert links and not links - anchors, links - anchors
