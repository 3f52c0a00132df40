"""What `langgraph dev` serves (langgraph.json points at `serve`): the graph, with the server's defaults fixed.

langgraph-api, as of 0.16, does three things a SPARKIT user would trip over:
- it drops every top-level context key that is not a property of the context schema, before the graph sees it, so
  `{"max_claims": 2}` or `{"court.n_hypotheses": 3}` are lost and a typo (`max_hypothesis`) runs to success;
- it streams `updates` filtered to the output schema's keys, so every node but `report` shows `null`;
- only a ValueError's message reaches the client; anything else reads "An internal error occurred".

So `serve` hands Studio's schema requests the plain `graph` (typed input, output and context schemas), and runs a
twin compiled without a context schema (the server then passes the whole context on) after validating that context
exactly as `Context(...)` does in Python: a bad setting fails the run with its InputError message. The twin streams
each node's real update and narrows `values` to the output schema itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from langgraph.graph.state import CompiledStateGraph

from agent.graph import ResearchGraph, build_graph, graph, research_graph

if TYPE_CHECKING:
    from langgraph_sdk.runtime import ServerRuntime


class _ServedGraph(ResearchGraph):
    """A compiled graph whose `updates` carry every key a node wrote, while `values` keep to the output schema."""

    async def astream(
        self,
        input: Any,
        config: Any = None,
        *,
        output_keys: str | Sequence[str] | None = None,
        stream_mode: Any = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode or [])
        narrow = output_keys
        if (
            "updates" not in modes
            or not isinstance(narrow, (list, tuple))
            or kwargs.get("subgraphs")
            or kwargs.get("version")
        ):
            async for part in super().astream(
                input, config, output_keys=output_keys, stream_mode=stream_mode, **kwargs
            ):
                yield part
            return
        last: dict[str, Any] | None = None
        async for part in super().astream(input, config, output_keys=None, stream_mode=stream_mode, **kwargs):
            mode, chunk = part if isinstance(stream_mode, (list, tuple)) else (stream_mode, part)
            if mode == "values" and isinstance(chunk, Mapping):
                chunk = {k: v for k, v in chunk.items() if k in narrow or k.startswith("__")}
                if chunk == last:
                    continue  # only the output keys are shown, so a step that did not change them is not a new value
                last = chunk
                part = (mode, chunk) if isinstance(stream_mode, (list, tuple)) else chunk
            yield part


@cache
def graph_for_runs() -> CompiledStateGraph:
    """The graph the server executes (module docstring): no context schema, full `updates`."""
    compiled = research_graph(build_graph(context_schema=None))
    compiled.__class__ = _ServedGraph  # same object layout: a subclass that only overrides astream
    return compiled


def serve(runtime: ServerRuntime) -> CompiledStateGraph:
    """langgraph.json's graph factory: `graph` for schemas and Studio's form; for a run, the caller's context
    validated first (unknown keys, presets and bad values raise InputError, a ValueError the server reports)."""
    if getattr(runtime, "access_context", None) != "threads.create_run":
        return graph
    context = getattr(runtime, "context", None)
    if context is not None:
        from agent.api import make_context

        make_context(dict(context) if isinstance(context, Mapping) else context)
    return graph_for_runs()
