"""A scripted backend and a one-call traced run for the tracing tests (no models, no network)."""

from __future__ import annotations

from typing import Any

from agent.api import ask
from agent.backend import register_backend
from agent.records import Answer
from agent.tracing import load_trace
from tests.fakes import ListSource, make_backend, record, unique_backend_name

CLAIM = "Exercise increases hippocampal volume in older adults"
DOCS = [
    record(
        f"r{i}",
        f"Exercise and memory study {i}",
        f"Aerobic exercise increases hippocampal volume in older adults, cohort {i}.",
        doi=f"10.1000/ex{i}",
        year=2015 + i,
    )
    for i in range(3)
] + [
    record(
        "c1",
        "Sedentary ageing cohort",
        "Aerobic exercise decreases hippocampal volume in a small cohort of older adults.",
        year=2019,
    )
]


def scripted_backend(sources: list[Any] | None = None, **kwargs: Any) -> str:
    """Register a fresh scripted backend and return its name (pass it as backend=...)."""
    name = unique_backend_name()
    register_backend(name, make_backend(sources or [ListSource(DOCS)], **kwargs))
    return name


def traced_run(**kwargs: Any) -> tuple[Answer, list[dict[str, Any]]]:
    """A verify run with trace=True through the public API, and the records of its trace."""
    kwargs.setdefault("backend", scripted_backend())
    answer = ask(CLAIM, mode="verify", trace=True, **kwargs)
    return answer, load_trace(answer.run_id)


def kinds(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("kind") == kind]
