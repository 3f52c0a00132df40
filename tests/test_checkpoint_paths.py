"""Checkpoints written before a state class moved to another module still load and resume: each stored value names
its class by module and name, so the serializer accepts a moved class's former path as well as its new one
(agent.api.checkpoint.FORMER_MODULES)."""

from __future__ import annotations

import base64
import importlib
import json
import sqlite3
from pathlib import Path

import pytest

from agent.api import ask, checkpoint_path, resume
from agent.api.checkpoint import FORMER_MODULES, former_paths, serializer, state_classes
from agent.backend import register_backend
from agent.records import Status
from agent.state import OutputState, ResearchState
from tests.fakes import FlakyStance, ListSource, make_backend, record, unique_backend_name
from tests.test_checkpoint import EXAMPLES, shape

WRITTEN_BEFORE = Path(__file__).parent / "data" / "checkpoint_channels_c6b850c.json"
"""The channels of tests/test_checkpoint.py's EXAMPLES that hold a class of agent/records.py, each as the serializer
wrote it at c6b850c, before records.py was split: every class named by its path then (`agent.records.Record`, ...)."""


def stored_before() -> dict[str, tuple[str, bytes]]:
    channels = json.loads(WRITTEN_BEFORE.read_text(encoding="utf-8"))["channels"]
    return {key: (kind, base64.b64decode(data)) for key, (kind, data) in channels.items()}


@pytest.mark.parametrize("channel", sorted(stored_before()))
def test_a_channel_written_before_the_split_loads_as_the_classes_it_held(channel):
    kind, data = stored_before()[channel]
    assert b"agent.records" in data  # written with the old paths
    back = serializer().loads_typed((kind, data))
    assert shape(back) == shape(EXAMPLES[channel]) and back == EXAMPLES[channel]


def test_every_former_path_leads_to_the_class_that_moved_and_is_allowed():
    classes = {f"{cls.__module__}.{cls.__name__}": cls for cls in state_classes(ResearchState, OutputState)}
    assert set(FORMER_MODULES) <= set(classes), "a moved class that the state no longer holds"
    allowed = set(serializer()._allowed_msgpack_modules)
    for path, module in FORMER_MODULES.items():
        cls = classes[path]
        assert module != cls.__module__
        assert getattr(importlib.import_module(module), cls.__name__) is cls
        assert (module, cls.__name__) in allowed and (cls.__module__, cls.__name__) in allowed
    assert former_paths(set(classes.values())) == {(m, p.rsplit(".", 1)[1]) for p, m in FORMER_MODULES.items()}


def test_a_run_checkpointed_under_the_former_paths_resumes_to_the_answer_of_an_uninterrupted_run(monkeypatch):
    """The first run writes its checkpoints as the code before the move did (each moved class named by its former
    module), its court crashes; the resumed run reads the pool, the ranked passages and the queries back as the
    classes they were and answers as a run that never stopped."""
    docs = [
        record(f"r{i}", f"Exercise and memory study {i}", f"Aerobic exercise increases hippocampal volume, cohort {i}.")
        for i in range(3)
    ]
    question = "Exercise increases hippocampal volume in older adults"
    reference_backend = unique_backend_name()
    register_backend(reference_backend, make_backend([ListSource(docs)]))
    reference = ask(question, mode="verify", backend=reference_backend, max_claims=0)
    assert reference.status == Status.ANSWERED

    moved = {f"{c.__module__}.{c.__name__}": c for c in state_classes(ResearchState, OutputState)}
    with monkeypatch.context() as before_the_move:
        for path, module in FORMER_MODULES.items():
            before_the_move.setattr(moved[path], "__module__", module)
        name = unique_backend_name()
        register_backend(name, make_backend([ListSource(docs)], stance=FlakyStance()))
        first = ask(question, mode="verify", backend=name, max_claims=0)
    assert first.status == Status.ERROR and "stance service crashed" in first.answer
    with sqlite3.connect(checkpoint_path()) as conn:
        stored = b"".join(
            bytes(row[0])
            for row in conn.execute("SELECT checkpoint FROM checkpoints WHERE thread_id = ?", (first.run_id,))
        )
    for module in set(FORMER_MODULES.values()):
        assert module.encode() in stored
    for path in FORMER_MODULES:
        assert path.rsplit(".", 1)[0].encode() not in stored, f"{path} was stored under its new module"

    resumed = resume(first.run_id, backend=name, max_claims=0)
    same = {"run_id", "usage"}  # the run's own id, and its wall time
    assert resumed.model_dump(exclude=same) == reference.model_dump(exclude=same)
