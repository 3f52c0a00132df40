"""Each paper at a glance, end to end through a scripted run: the court says which records it read, the report puts
each one's answer, design and size on the answer (its JSON) and in the state (LangGraph Studio's view), the terminal
prints the meter and the table, and the trace's page and `trace show` carry them."""

from __future__ import annotations

import json
import re

from agent.answer.text import render
from agent.cli import main
from agent.nodes.report import report
from tests.nodes.test_nodes import _courted, run, runtime
from tests.tracing.helpers import CLAIM, scripted_backend, traced_run


def test_the_answer_and_its_json_carry_every_paper_the_court_read():
    answer, _ = traced_run()
    assert [p.record_id for p in answer.papers] == ["r0", "r1", "r2", "c1"]
    assert {p.answer for p in answer.papers[:3]} == {"supports"} and answer.papers[3].answer == "contradicts"
    payload = json.loads(answer.model_dump_json())["papers"][0]
    assert set(payload) >= {"record_id", "answer", "design", "design_sentence", "sample_size", "size_sentence"}
    assert payload["design"] == "cohort" and "cohort 0" in payload["design_sentence"]


def test_the_state_holds_the_papers_and_the_records_the_court_read():
    rt = runtime()
    state = _courted(rt)
    assert state["court_read"] and set(state["court_read"]) <= set(state["pool"])
    update = run(report, {**state, "usage": state.get("usage")}, rt)
    assert update["papers"] == update["answer"].papers
    assert [p.record_id for p in update["papers"]] == state["court_read"]


def test_the_terminal_prints_the_meter_and_a_row_per_paper(capsys):
    assert main(["verify", CLAIM, "--set", f"backend={scripted_backend()}", "-q", "--no-trace"]) == 0
    out = capsys.readouterr().out
    assert "Papers the court read (4): supports 3 · contradicts 1" in out
    assert "[██████████████████░░░░░░]" in out
    rows = [line for line in out.splitlines() if line.lstrip().startswith(("supports ", "contradicts "))]
    assert len(rows) == 4 and all("cohort" in row for row in rows)


def test_the_trace_page_and_trace_show_carry_the_papers(tmp_path, capsys):
    answer, _ = traced_run()
    page = tmp_path / "trace.html"
    assert main(["trace", "html", answer.run_id, "-o", str(page)]) == 0
    html = page.read_text()
    assert '<section id="papers">' in html and '<svg class="meter"' in html
    assert len(re.findall(r'class="badge [a-z]* ?paper-', html)) == 4 and 'class="badge ok paper-supports"' in html
    assert f'href="#rec-{answer.papers[0].record_id}"' in html
    capsys.readouterr()
    assert main(["trace", "show", answer.run_id]) == 0
    assert "Papers the court read (4): supports 3 · contradicts 1" in capsys.readouterr().out
    assert "Papers the court read" in render(answer)
