"""The diagrams of a run in the README and the docs are the graph's: each Mermaid flowchart has exactly the compiled
graph's edges, so a node added to the graph (as `review` once was, and the README's diagram never showed it) or an
edge rewired fails here until the pictures follow. And every relative link in those pages reaches a file, and a
heading where it names one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.graph import graph
from tests.evals.test_results_page import slug

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ENDS = {"START": "__start__", "END": "__end__"}
EDGE = re.compile(r"^\s*(\w+)(?:\(\[[^\]]*\]\)|\[[^\]]*\])?\s*(?:-->|-\.->)(?:\|[^|]*\|)?\s*(\w+)")


def diagrams(text: str) -> list[str]:
    return re.findall(r"^```mermaid\n(.*?)^```", text, flags=re.S | re.M)


def drawn_edges(diagram: str) -> set[tuple[str, str]]:
    return {
        (ENDS.get(m.group(1), m.group(1)), ENDS.get(m.group(2), m.group(2)))
        for m in map(EDGE.match, diagram.splitlines())
        if m
    }


def graph_edges() -> set[tuple[str, str]]:
    return {(edge.source, edge.target) for edge in graph.get_graph().edges}


def test_the_readme_draws_the_graph_with_its_review_point():
    drawn = diagrams((ROOT / "README.md").read_text(encoding="utf-8"))
    assert drawn and ("review", "synthesize") in drawn_edges(drawn[0]) and ("court", "review") in graph_edges()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_diagram_has_exactly_the_graphs_edges(page):
    expected = graph_edges()
    for diagram in diagrams(page.read_text(encoding="utf-8")):
        drawn = drawn_edges(diagram)
        assert drawn == expected, f"missing {sorted(expected - drawn)}, not in the graph {sorted(drawn - expected)}"


def test_an_edge_left_out_is_caught():
    diagram = diagrams((ROOT / "README.md").read_text(encoding="utf-8"))[0]
    without_review = "\n".join(line for line in diagram.splitlines() if "review" not in line)
    assert drawn_edges(without_review) != graph_edges()


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {slug(h) for h in re.findall(r"^#+\s+(.*)$", text, flags=re.M)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_its_file_and_heading(page):
    text = re.sub(r"`[^`\n]+`", "", re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M))
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in anchors(linked)):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def test_a_heading_slug_is_githubs():
    assert slug("What `--json` prints") == "what---json-prints"
    assert slug("OpenTelemetry / Phoenix") == "opentelemetry--phoenix"
