"""The Python API is a thin front over the run engine (agent/api/engine.py): its public import paths stay what the
README and docs/python-api.md show, whichever module defines the machinery behind them."""

import inspect
import subprocess
import sys

import agent
import agent.api as api
from agent.api import engine


def test_the_public_names_import_from_agent_and_agent_api():
    for name in agent.__all__:
        assert getattr(agent, name) is not None
    from agent import Answer, Context, aask, aresume, ask, averify, resume, stance_judge, verify  # noqa: F401

    assert (aask, averify, aresume) == (api.aask, api.averify, api.aresume)
    assert all(inspect.iscoroutinefunction(f) for f in (aask, averify, aresume))
    assert Context is agent.config.Context
    for name in api.__all__:
        assert getattr(api, name) is not None, name


def test_the_front_hands_each_run_to_the_engine_and_keeps_its_helpers_importable_from_agent_api(monkeypatch, tmp_path):
    assert (api.checkpoint_path, api.ensure_home, api.new_run_id) == (
        engine.checkpoint_path,
        engine.ensure_home,
        engine.new_run_id,
    )
    runs = []

    async def traced_run(graph_input, settings, run_id, asked, *args):
        runs.append((graph_input, settings.preset, run_id, asked))
        return "answer"

    async def checkpointed_run(run_id, edits):
        return {"question": "Does aspirin reduce fever?"}, {"preset": "fast"}

    monkeypatch.setenv("SPARKIT_HOME", str(tmp_path))
    monkeypatch.setattr(engine, "traced_run", traced_run)
    monkeypatch.setattr(engine, "checkpointed_run", checkpointed_run)
    assert api.ask("Does aspirin reduce fever?", run_id="r1") == "answer"
    assert api.resume("r1") == "answer"
    asked = {"question": "Does aspirin reduce fever?", "options": [], "mode": "ask"}
    assert runs == [(asked, "default", "r1", asked), (None, "fast", "r1", {"question": "Does aspirin reduce fever?"})]


def test_importing_agent_stays_cheap():
    """`import agent` loads neither the API nor the engine until a name is asked for (agent/__init__.py)."""
    code = "import sys, agent; print(sorted(m for m in sys.modules if m.startswith('agent.api')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
