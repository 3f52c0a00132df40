"""`sparkit ask` traces by default and prints usage per node; `sparkit trace list|show|html` read traces."""

from __future__ import annotations

import json
import re

from agent.cli import main
from agent.tracing import list_traces, trace_path, traces_dir
from tests.tracing.helpers import CLAIM, scripted_backend, traced_run


def test_cli_verify_writes_a_trace_by_default_and_prints_usage_per_node(capsys, monkeypatch):
    monkeypatch.delenv("SPARKIT_TRACE", raising=False)
    assert main(["verify", CLAIM, "--set", f"backend={scripted_backend()}", "-q"]) == 0
    out, err = capsys.readouterr()
    run_id = re.search(r"run (\w+)", out).group(1)
    assert trace_path(run_id).exists()
    assert f"trace: {trace_path(run_id)}" in err and f"sparkit trace show {run_id}" in err
    assert "Usage by node:" in out and re.search(r"^\s+retrieve\s+2\s", out, re.M)


def test_cli_json_output_has_usage_by_node(capsys):
    assert main(["verify", CLAIM, "--set", f"backend={scripted_backend()}", "--json", "-q"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["usage"]["by_node"]["court"]["runs"] == 1


def test_no_trace_flag_and_env_switch_tracing_off(capsys, monkeypatch):
    backend = scripted_backend()
    assert main(["verify", CLAIM, "--set", f"backend={backend}", "-q", "--no-trace"]) == 0
    assert not traces_dir().exists()
    monkeypatch.setenv("SPARKIT_TRACE", "0")
    assert main(["verify", CLAIM, "--set", f"backend={backend}", "-q"]) == 0
    assert not traces_dir().exists()
    assert "trace:" not in capsys.readouterr().err


def test_trace_list_shows_runs_newest_first(capsys):
    first, _ = traced_run()
    second, _ = traced_run()
    assert main(["trace", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("RUN ID")
    assert lines[1].startswith(second.run_id) and lines[2].startswith(first.run_id)
    assert "ANSWERED" in lines[1] and CLAIM[:40] in lines[1]
    assert main(["trace", "list", "--json", "-n", "1"]) == 0
    assert [e["run_id"] for e in json.loads(capsys.readouterr().out)] == [second.run_id]


def test_trace_list_when_empty(capsys):
    assert main(["trace", "list"]) == 0
    assert "no traces yet" in capsys.readouterr().out


def test_trace_show_prints_tree_timings_decisions_and_usage(capsys):
    answer, _ = traced_run()
    assert main(["trace", "show", answer.run_id[:6]]) == 0  # a unique prefix is enough
    out = capsys.readouterr().out
    assert out.startswith(f"Trace {answer.run_id}")
    for node in ("retrieve r1", "hypothesize r1", "court r2", "verify_claims r2"):
        assert re.search(rf"[├└]── {node}\s+\d+ ms \|", out), node
    court = next(d for d in answer.decisions if d.at == "court")
    assert f"→ {court.next}: {court.reason}" in out
    assert re.search(rf"court\s+{court.next}\s+\d+\s+{court.margin:.3f}", out)
    assert "[llm 40, sources" in out and "Usage by node:" in out and "Total:" in out


def test_trace_show_unknown_run_is_one_line_exit_2(capsys):
    assert main(["trace", "show", "nope123"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sparkit: error: no trace for run 'nope123'") and len(err.splitlines()) == 1
    assert main(["trace", "show", "../../etc/passwd"]) == 2


def test_trace_html_is_self_contained_and_links_citations(tmp_path, capsys):
    answer, _ = traced_run()
    page = tmp_path / "out" / "trace.html"
    assert main(["trace", "html", "latest", "-o", str(page)]) == 0
    assert str(page) in capsys.readouterr().out
    html = page.read_text()
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html, re.I), (
        "the page references an external resource"
    )
    assert "@import" not in html and "url(" not in html
    for citation in answer.citations:
        assert f'href="#rec-{citation.id}"' in html and f'id="rec-{citation.id}"' in html
    assert "doi:10.1000/ex0" in html  # shown as text
    for node in ("retrieve", "hypothesize", "court", "verify_claims"):
        assert f'data-node="{node}"' in html
    for section in ("timeline", "tree", "decisions", "hypotheses", "ledger", "claims", "records"):
        assert f'<section id="{section}">' in html
    assert list_traces()[0]["run_id"] == answer.run_id
