"""Issue 18: the three ways in (Studio and the server, the Python API, the CLI) under real use and careless input.

Each test here failed on the code before the fix it names. No models, no network: scripted backends (tests/fakes.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
import time
import warnings
from types import SimpleNamespace

import pytest

from agent.api import aask, ask, resume
from agent.api.langgraph_server import serve
from agent.backend import abackend_for, register_backend
from agent.budget import spent_reason
from agent.cli import main
from agent.common.redact import redact
from agent.config import PRESETS, Context
from agent.errors import CorpusError, InputError
from agent.graph import STEPS, graph
from agent.nodes.parts import RunPins
from agent.nodes.runnable import run_step
from agent.records import AnswerSentence, Status, Usage
from agent.tracing import load_trace
from tests.fakes import (
    FlakyStance,
    ListSource,
    RuleStance,
    make_backend,
    record,
    unique_backend_name,
)

CLAIM = "Exercise increases hippocampal volume in older adults"
DOCS = [
    record(
        f"r{i}",
        f"Exercise and memory study {i}",
        f"Aerobic exercise increases hippocampal volume in older adults, cohort {i}.",
    )
    for i in range(3)
]


def backend(docs=None, **kwargs) -> str:
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(docs or DOCS)], **kwargs))
    return name


def _errors(err: str) -> list[str]:
    return [line for line in err.strip().splitlines() if not line.startswith("sparkit: run ")]


# ------------------------------------------------------------------------------------------ schemas and the server
def test_input_and_output_schemas_are_typed_and_described():
    inputs = graph.get_input_jsonschema()["properties"]
    assert inputs["mode"]["enum"] == ["ask", "verify"] and all(p["description"] for p in inputs.values())
    output = graph.get_output_jsonschema()
    assert list(output["properties"]) == ["answer"] and output["properties"]["answer"]["description"]


def test_conditional_edges_are_drawn_with_their_reason():
    mermaid = graph.get_graph().draw_mermaid()
    for label in ("hop citations", "no hypotheses yet", "low margin or disagreement", "contested claims"):
        assert f"&nbsp;{label}&nbsp;" in mermaid


def test_a_form_that_sends_every_schema_default_keeps_the_preset():
    """Studio's form sends every `default` in the schema; those values must not override the chosen preset."""
    schema = Context.model_json_schema()
    form = {
        group: {field: prop["default"] for field, prop in section.get("properties", {}).items() if "default" in prop}
        for group, section in schema["properties"].items()
        if section.get("type") == "object"
    }
    context = Context.model_validate({**form, "preset": "fast"})
    assert context.court.n_hypotheses == PRESETS["fast"]["court"]["n_hypotheses"] == 3
    assert context.court.max_discrimination_rounds == 0


def _run_runtime(context):
    return SimpleNamespace(access_context="threads.create_run", context=context)


def test_the_server_rejects_unknown_settings_as_python_does():
    with pytest.raises(InputError, match="invalid setting max_hypothesis") as caught:
        serve(_run_runtime({"max_hypothesis": 3}))
    assert isinstance(caught.value, ValueError)  # langgraph-api passes a ValueError's message to the client
    run_graph = serve(_run_runtime({"max_claims": 2, "court.n_hypotheses": 3}))
    assert run_graph.get_context_jsonschema() is None  # so the server hands flat and dotted names on, not drops them
    assert serve(SimpleNamespace(access_context="assistants.read")) is graph  # Studio's schemas: the typed graph


def test_unknown_mode_is_rejected_in_python_and_in_the_graph():
    with pytest.raises(InputError, match="unknown mode 'verfy'"):
        ask(CLAIM, mode="verfy", backend=backend())
    with pytest.raises(InputError, match="unknown mode"):
        graph.invoke({"question": CLAIM, "mode": "verfy"}, context={"backend": backend()})


def test_the_server_graph_streams_each_nodes_real_update():
    from agent.api.langgraph_server import graph_for_runs

    async def stream():
        return [
            part
            async for part in graph_for_runs().astream(
                {"question": CLAIM, "mode": "verify"},
                context={"backend": backend(), "max_claims": 0},
                stream_mode=["updates", "values"],
                output_keys=graph_for_runs().output_channels,
            )
        ]  # as langgraph-api calls it

    parts = asyncio.run(stream())
    updates = [chunk for mode, chunk in parts if mode == "updates"]
    assert all(update for chunk in updates for update in chunk.values())
    assert next(c["retrieve"] for c in updates if "retrieve" in c)["round"] == 1
    values = [chunk for mode, chunk in parts if mode == "values"]
    assert set(values[-1]) == {"answer"}


# ------------------------------------------------------------------------------------------ Python API
def test_question_of_the_wrong_type_says_so():
    with pytest.raises(InputError, match="must be text, not int"):
        ask(123)


def test_answer_sentences_are_models():
    answer = ask(CLAIM, mode="verify", backend=backend(), max_claims=0)
    assert answer.sentences and all(isinstance(s, AnswerSentence) for s in answer.sentences)


def test_ask_inside_a_running_event_loop_works_without_warnings():
    name = backend()

    async def notebook_cell():
        return ask(CLAIM, mode="verify", backend=name, max_claims=0)

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # "coroutine ... was never awaited" would be an error
        answer = asyncio.run(notebook_cell())
    assert answer.status == Status.ANSWERED


def test_concurrent_runs_build_a_backend_once_and_never_at_the_same_time():
    building, overlaps, builds = [0], [0], [0]
    lock = threading.Lock()
    inner = make_backend([ListSource(DOCS)])

    def slow_factory(settings, documents=None):
        with lock:
            building[0] += 1
            overlaps[0] = max(overlaps[0], building[0])
            builds[0] += 1
        time.sleep(0.3)  # e.g. importing transformers and loading a model
        with lock:
            building[0] -= 1
        return inner(settings, documents)

    name = unique_backend_name()
    register_backend(name, slow_factory)

    async def two_runs():
        return await asyncio.gather(
            aask(CLAIM, mode="verify", backend=name, max_claims=0),
            aask(CLAIM, mode="verify", backend=name, max_claims=0),
        )

    answers = asyncio.run(two_runs())
    assert [a.status for a in answers] == [Status.ANSWERED, Status.ANSWERED]
    assert builds[0] == 1 and overlaps[0] == 1


def test_different_backends_are_not_built_concurrently():
    active, peak = [0], [0]
    lock = threading.Lock()

    def factory_for(inner):
        def build(settings, documents=None):
            with lock:
                active[0] += 1
                peak[0] = max(peak[0], active[0])
            time.sleep(0.2)
            with lock:
                active[0] -= 1
            return inner(settings, documents)

        return build

    names = []
    for _ in range(2):
        names.append(unique_backend_name())
        register_backend(names[-1], factory_for(make_backend([ListSource(DOCS)])))

    async def both():
        await asyncio.gather(*(abackend_for(Context(backend=n)) for n in names))

    asyncio.run(both())
    assert peak[0] == 1


# ------------------------------------------------------------------------------------------ CLI: careless input
def test_set_without_equals_is_a_clear_input_error(capsys):
    assert main(["ask", "Is water wet?", "--set", "max_claims"]) == 2
    err = capsys.readouterr().err.strip()
    assert "NAME=VALUE" in err and "'max_claims'" in err and "REDACTED" not in err


def test_key_value_in_a_question_is_not_a_secret():
    assert redact('{"question": "What does key=value mean?"}') == '{"question": "What does key=value mean?"}'
    assert redact("GET /search?q=x&key=abcdef123456") == "GET /search?q=x&key=[REDACTED]"


def test_invalid_utf8_question_is_refused_at_once(capsys, tmp_path, monkeypatch):
    question = b"Does caf\xe9 help?".decode("utf-8", "surrogateescape")  # what argv holds for undecodable bytes
    assert main(["ask", question, "--set", f"backend={backend()}"]) == 2
    assert "not valid UTF-8" in capsys.readouterr().err
    assert not list((tmp_path / "sparkit-home").glob("traces/*.tmp"))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"id": "d1", "title": "T", "abstract": "A sentence.", "references": 5}, "'references' must be a list"),
        ({"id": "d1", "title": "T", "abstract": "A sentence.", "year": float("nan")}, "'year' must be a number"),
        ({"id": "d1", "title": "T", "abstract": {"x": 1}}, "abstract must be text"),
        ({"id": ["d1"], "title": "T", "abstract": "A sentence."}, "id must be a string or a number"),
    ],
)
def test_wrongly_typed_document_fields_are_one_line_errors(line, message, capsys, tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps(line) + "\n")
    assert main(["ask", "Is water wet?", "--documents", str(path), "-q"]) == 2
    err = _errors(capsys.readouterr().err)
    assert len(err) == 1 and "corpus line 1" in err[0] and message in err[0]


def test_a_numeric_doi_is_read_as_text(tmp_path):
    from agent.tools.index.corpus_records import load_corpus

    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"id": 7, "title": "T", "abstract": "A sentence.", "doi": 10.1}) + "\n")
    assert load_corpus(path)[0].doi == "10.1"


def test_non_utf8_documents_and_folders_are_one_line_errors(capsys, tmp_path):
    binary = tmp_path / "docs.jsonl"
    binary.write_bytes(b'{"id": "d1", "title": "caf\xe9"}\n')
    with pytest.raises(CorpusError, match="not UTF-8"):
        main_raises(["ask", "Is water wet?", "--documents", str(binary), "-q"], capsys)
    with pytest.raises(CorpusError, match="is a folder"):
        main_raises(["ask", "Is water wet?", "--documents", str(tmp_path), "-q"], capsys)


def main_raises(argv, capsys):
    """Run the CLI and raise what its one error line says, as the CorpusError it printed."""
    assert main(argv) == 2
    (line,) = _errors(capsys.readouterr().err)
    raise CorpusError(line)


def test_a_sparkit_home_that_is_a_file_is_a_one_line_error(capsys, tmp_path, monkeypatch):
    home = tmp_path / "not-a-folder"
    home.write_text("x")
    monkeypatch.setenv("SPARKIT_HOME", str(home))
    assert main(["ask", CLAIM, "--set", f"backend={backend()}", "--no-trace"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sparkit: error: SPARKIT_HOME") and len(err.splitlines()) == 1 and "resume" not in err


# ------------------------------------------------------------------------------------------ CLI: terminal safety
def test_escape_sequences_from_data_never_reach_the_terminal(capsys, monkeypatch):
    monkeypatch.setenv("SPARKIT_TRACE", "1")
    hostile = [
        record(
            "evil",
            "\x1b]0;pwned\x07Exercise\x1b[2J study \x9b31m",
            "Aerobic exercise increases hippocampal volume in older adults.\x1b[8m",
        )
    ]
    name = backend(docs=hostile + DOCS)
    question = "Exercise\x1b[2J increases hippocampal volume in older adults"
    assert main(["verify", question, "--set", f"backend={name}", "--set", "max_claims=0"]) == 0
    out = capsys.readouterr()
    assert "Exercise study" in out.out  # the title is shown, without its escapes
    for text in (out.out, out.err):
        assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
    assert main(["trace", "list"]) == 0
    listing = capsys.readouterr().out
    assert "\x1b" not in listing and "Exercise increases" in listing


# ------------------------------------------------------------------------------------------ run lifecycle
def test_resume_of_an_unknown_run_is_a_one_line_error_and_writes_nothing(capsys, tmp_path):
    assert main(["resume", "deadbeef0000"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sparkit: error: no checkpointed run 'deadbeef0000'") and len(err.splitlines()) == 1
    assert not (tmp_path / "sparkit-home" / "traces").exists()


def test_the_run_id_is_printed_first(capsys):
    assert main(["verify", CLAIM, "--set", f"backend={backend()}", "--set", "max_claims=0", "-q", "--json"]) == 0
    out = capsys.readouterr()
    run_id = json.loads(out.out)["run_id"]
    assert out.err.splitlines()[0] == f"sparkit: run {run_id} (if it stops: sparkit resume {run_id})"


def test_resume_continues_with_the_runs_own_settings():
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(DOCS)], stance=FlakyStance()))
    first = ask(CLAIM, mode="verify", backend=name, preset="fast", max_claims=1, trace=True)
    assert first.status == Status.ERROR
    resumed = resume(first.run_id, trace=True)  # no settings given: the run's own (its backend, preset and max_claims)
    assert resumed.status == Status.ANSWERED
    settings = [r["settings"] for r in load_trace(first.run_id) if r["kind"] == "meta"][-1]
    assert (
        settings["preset"] == "fast"
        and settings["verification"]["max_claims"] == 1
        and settings["corpus"]["backend"] == name
    )
    again = resume(first.run_id, max_claims=0)  # overrides on the resume apply on top
    assert again.run_id == first.run_id


# ------------------------------------------------------------------------------------------ hard budgets
class SlowStance(RuleStance):
    """A stance judge that takes `seconds` per call: a long court."""

    def __init__(self, seconds: float):
        super().__init__()
        self.seconds = seconds

    async def judge(self, pairs):
        await asyncio.sleep(self.seconds)
        return await super().judge(pairs)


def test_a_node_still_working_at_the_deadline_is_cut_with_heartbeats_meanwhile(monkeypatch):
    from agent.nodes import guard

    events = []
    monkeypatch.setattr(guard, "HEARTBEAT_S", 0.02)
    monkeypatch.setattr(guard, "emit", events.append)

    async def court(state, parts):
        await asyncio.sleep(60)
        return {"margin": 1.0}

    state = {"started_at": time.time(), "round": 2}
    update = asyncio.run(
        run_step(dataclasses.replace(STEPS["court"], work=court), state, Context(max_wall_time_s=0.3), RunPins())
    )
    assert update["budget_stop"].startswith("wall_time: max_wall_time_s=0.3 reached during court (cut after")
    assert update["decisions"][0].next == "synthesize" and "budget_exhausted" in update["decisions"][0].reason
    assert events[0]["event"] == "start" and events[-1]["event"] == "cut"
    assert any(e["event"] == "heartbeat" for e in events)


def test_a_run_past_its_wall_time_stops_as_budget_exhausted():
    answer = ask(CLAIM, mode="verify", backend=backend(stance=SlowStance(600)), max_claims=0, max_wall_time_s=3)
    assert answer.status == Status.BUDGET_EXHAUSTED  # not 600 s later: the court was cut (or never started)
    assert answer.stop_reason.startswith("budget_exhausted: wall_time: max_wall_time_s=3 reached")


def test_once_stopped_every_node_but_report_is_skipped():
    async def retrieve(state, parts):
        raise AssertionError("a node ran after the budget stopped the run")

    update = asyncio.run(
        run_step(
            dataclasses.replace(STEPS["retrieve"], work=retrieve), {"budget_stop": "wall_time: x"}, Context(), RunPins()
        )
    )
    assert update["decisions"][0].next == "rerank" and update["budget_stop"] == "wall_time: x"


def test_no_source_calls_allowed_is_budget_exhausted():
    answer = ask(CLAIM, mode="verify", backend=backend(), max_claims=0, max_source_calls=0)
    assert answer.status == Status.BUDGET_EXHAUSTED and "max_source_calls=0" in answer.stop_reason


def test_zero_dollars_means_zero_not_off():
    settings = Context(max_cost_usd=0)
    assert spent_reason(Usage(cost_usd=0.001), None, settings) == "cost"
    assert spent_reason(Usage(cost_usd=0.0), None, settings) is None  # nothing paid, nothing spent


def test_the_routing_reads_the_same_wall_clock_as_the_node_guard():
    """The loop edges stop on the run clock's deadline, which excludes set-up (models, index), not on `started_at`."""
    from langchain_core.runnables.config import var_child_runnable_config

    from agent.budget import RUN_CLOCK_KEY, RunClock
    from agent.records import Hypothesis
    from agent.routing import decide_after_court

    settings = Context(max_wall_time_s=5)
    state = {
        "started_at": time.time() - 10,
        "margin": 0.0,
        "ledger": [],
        "pool": {"a": object()},
        "discrimination_rounds": 1,
        "hypotheses": [Hypothesis(id="H1", text="x")],
    }
    for setup_s, expected in ((20.0, "discriminate"), (0.0, "synthesize")):
        token = var_child_runnable_config.set(
            {"configurable": {RUN_CLOCK_KEY: RunClock(start=time.time() - 10, setup_s=setup_s)}}
        )
        try:
            decision = decide_after_court(state, settings)
        finally:
            var_child_runnable_config.reset(token)
        assert decision.next == expected, decision.reason
    assert "budget_exhausted: wall_time" in decision.reason


def test_loading_models_does_not_spend_the_wall_time_budget():
    """Building the backend (models, index) is set-up paid once per process: the clock stops while it runs."""
    inner = make_backend([ListSource(DOCS)])

    def slow_setup(settings, documents=None):
        time.sleep(2.5)  # loading models on a busy machine
        return inner(settings, documents)

    name = unique_backend_name()
    register_backend(name, slow_setup)
    answer = ask(CLAIM, mode="verify", backend=name, max_claims=0, max_wall_time_s=2)
    assert answer.status == Status.ANSWERED, answer.stop_reason


def test_a_spinner_turns_on_a_terminal_or_when_asked_and_stays_silent_in_a_pipe(monkeypatch):
    import io

    from agent.common.terminal import Spinner

    monkeypatch.delenv("SPARKIT_PROGRESS", raising=False)
    pipe = io.StringIO()
    with Spinner("loading models", stream=pipe, interval_s=0.01):
        time.sleep(0.05)
    assert pipe.getvalue() == ""  # not a terminal
    monkeypatch.setenv("SPARKIT_PROGRESS", "1")
    asked = io.StringIO()
    with Spinner("loading \x1b[2Jmodels", stream=asked, interval_s=0.01) as spinner:
        time.sleep(0.05)
    assert spinner.frames_drawn >= 1 and "loading models (0 s)" in asked.getvalue() and "\x1b" not in asked.getvalue()


def test_cli_progress_shows_node_starts_and_heartbeats(capsys):
    from agent.cli.run import _progress

    _progress({"node": "court", "event": "start"})
    _progress({"node": "court", "event": "heartbeat", "elapsed_s": 6.2})
    _progress({"node": "retrieve", "round": 1, "queries": ["a\x1b]0;x\x07b"]})
    assert capsys.readouterr().err.splitlines() == [
        "  [court] ...",
        "  [court] still working (6 s)",
        "  [retrieve] round=1, queries=[ab]",
    ]


def test_concurrent_runs_release_the_shared_connections_only_when_the_last_ends():
    closed_while_running: list[int] = []
    running = [0]

    class Tools:
        async def aclose(self):
            closed_while_running.append(running[0])

    inner = make_backend([ListSource(DOCS)], stance=SlowStance(0.3))

    def with_tools(settings, documents=None):
        built = inner(settings, documents)
        built.tools = Tools()
        return built

    name = unique_backend_name()
    register_backend(name, with_tools)

    async def tracked(max_claims):
        running[0] += 1
        try:
            return await aask(CLAIM, mode="verify", backend=name, max_claims=max_claims)
        finally:
            running[0] -= 1

    async def both():
        return await asyncio.gather(tracked(0), tracked(1))

    answers = asyncio.run(both())
    assert all(a.status == Status.ANSWERED for a in answers)
    assert closed_while_running == [1]  # once, by the last run to end (the other had already finished)
