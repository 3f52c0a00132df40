"""The LangChain callback that captures a run tree in memory, to be written as a local trace at run end.

A `BaseTracer` receives every run start/end; `_persist_run` is called with each finished root run and its
whole `child_runs` tree. Nothing is written here: holding the tree and writing once at the end (in a worker
thread, see TraceSession.save) keeps the event loop free while the graph runs.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tracers.base import BaseTracer


class LocalTracer(BaseTracer):
    """Collects finished root runs (`roots`), in the order they end."""

    # Called inline, not through an executor: the handlers only build Run objects, and inline calls keep
    # the start/end order exact.
    run_inline = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.roots: list[Any] = []

    def _persist_run(self, run: Any) -> None:
        self.roots.append(run)
