"""The process's OpenTelemetry pipeline for SPARKIT_OTLP_ENDPOINT: a TracerProvider, OpenInference's LangChain
instrumentation, and an exporter that redacts every span before it leaves.

Imported only when the endpoint is set (agent/tracing/otel.py), so a run without it never loads opentelemetry. Why
one provider per process, not per run: LangChainInstrumentor patches LangChain's callback managers process-wide and
a BatchSpanProcessor owns an export thread; building them per run would leak threads and double every span. Why the
export is batched in a thread with short timeouts: a collector that is down or slow must never slow a run, and the
end-of-run flush waits at most FLUSH_TIMEOUT_S.
"""

from __future__ import annotations

import atexit
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import SpanContext, Tracer
from opentelemetry.util.types import AttributeValue

from agent.common.redact import is_secret_name, redact

EXPORT_TIMEOUT_S = 5.0
"""One OTLP request (with its retries) gives up after this long: a collector that is down costs the export thread
this much, never the run."""
FLUSH_TIMEOUT_S = 5.0
"""The most a finished run waits for its spans to be sent."""
MAX_VALUE_CHARS = 8000
"""An input or output value longer than this is summarised (agent.tracing.summarize) before export."""
PROJECT_ATTRIBUTE = "openinference.project.name"
"""The resource attribute Phoenix files traces under (its project)."""


class RedactingExporter(SpanExporter):
    """Passes each span to `inner` with every string attribute (and event attribute) run through agent.common.redact,
    and values under credential-named keys masked: the same rule as the local trace, applied to LangChain's own run
    inputs and outputs that OpenInference records."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self.inner.export([export_span(span) for span in spans])

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


def _slim(value: str) -> str:
    """A long JSON input or output (a node's input is the whole research state, the record pool included) summarised
    as the local trace summarises it: the pool as its count and ids, long lists and strings cut."""
    if len(value) <= MAX_VALUE_CHARS:
        return value
    from agent.tracing.summarize import cut, summarize

    try:
        return cut(json.dumps(summarize(json.loads(value)), ensure_ascii=False, default=str), MAX_VALUE_CHARS)
    except ValueError:
        return cut(value, MAX_VALUE_CHARS)


def _clean(name: str, value: AttributeValue) -> AttributeValue:
    if isinstance(value, str):
        if is_secret_name(name.rsplit(".", 1)[-1]):
            return "[REDACTED]"
        return redact(_slim(value) if name in ("input.value", "output.value") else value)
    if isinstance(value, Sequence) and value and isinstance(value[0], str):
        return [redact(str(v)) for v in value]
    return value


def _clean_all(attributes: Any) -> dict[str, AttributeValue]:
    return {k: _clean(k, v) for k, v in (attributes or {}).items()}


def priced(attributes: dict[str, AttributeValue]) -> dict[str, AttributeValue]:
    """An LLM span's attributes with its dollar cost (llm.cost.*), priced like the local trace
    (agent.llm.roles.PRICES_PER_MTOK) from its model and token counts, when the model is in the table."""
    from agent.tracing.runs import price_of

    tokens_in, tokens_out = attributes.get("llm.token_count.prompt"), attributes.get("llm.token_count.completion")
    model = attributes.get("llm.model_name")
    price = price_of(model) if isinstance(model, str) else None
    if price is None or "llm.cost.total" in attributes or not isinstance(tokens_in, int | float):
        return attributes
    tokens_out = tokens_out if isinstance(tokens_out, int | float) else 0
    prompt, completion = tokens_in * price[0] / 1e6, tokens_out * price[1] / 1e6
    return {
        **attributes,
        "llm.cost.prompt": prompt,
        "llm.cost.completion": completion,
        "llm.cost.total": prompt + completion,
    }


def export_span(span: ReadableSpan) -> ReadableSpan:
    """A copy of `span` whose name, attributes and event attributes hold no secret, LLM spans priced."""
    from opentelemetry.sdk.trace import Event

    events = [Event(redact(e.name), _clean_all(e.attributes), e.timestamp) for e in span.events]
    return ReadableSpan(
        name=redact(span.name),
        context=span.context,
        parent=span.parent,
        resource=span.resource,
        attributes=priced(_clean_all(span.attributes)),
        events=events,
        links=span.links,
        kind=span.kind,
        status=span.status,
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


@dataclass(frozen=True)
class NodeSpan:
    """A graph node's span: the node, its start and end (ns since the epoch) and its context (to parent spans on)."""

    node: str
    start: int
    end: int
    context: SpanContext
    parent_id: int | None = None


class NodeSpans(SpanProcessor):
    """Remembers, for the traces of runs in progress, the span of each graph node run (OpenInference names a node's
    span after the node and records `langgraph_node` in its metadata), so the spans SPARKIT adds after the run
    (retrievals, stance readings, source calls) hang under the node that made them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_trace: dict[int, list[NodeSpan]] = {}

    def watch(self, trace_id: int) -> None:
        with self._lock:
            self._by_trace[trace_id] = []

    def take(self, trace_id: int) -> dict[str, list[NodeSpan]]:
        """Node name -> its spans in start order, for this trace (forgotten afterwards)."""
        with self._lock:
            found = self._by_trace.pop(trace_id, [])
        ids = {(n.node, n.context.span_id) for n in found}
        out: dict[str, list[NodeSpan]] = {}
        for node_span in sorted(found, key=lambda n: n.start):
            if (node_span.node, node_span.parent_id) not in ids:  # the node's inner runnable repeats its name
                out.setdefault(node_span.node, []).append(node_span)
        return out

    def on_end(self, span: ReadableSpan) -> None:
        context = span.context
        if context is None or context.trace_id not in self._by_trace:
            return
        node = _node_of(span)
        if node is not None and node == span.name:
            with self._lock:
                if context.trace_id in self._by_trace:
                    start, end = span.start_time or 0, span.end_time or span.start_time or 0
                    parent = span.parent.span_id if span.parent else None
                    self._by_trace[context.trace_id].append(NodeSpan(node, start, end, context, parent))


def _node_of(span: ReadableSpan) -> str | None:
    raw = (span.attributes or {}).get("metadata")
    if not isinstance(raw, str) or "langgraph_node" not in raw:
        return None
    try:
        node = json.loads(raw).get("langgraph_node")
    except (ValueError, AttributeError):
        return None
    return node if isinstance(node, str) else None


class Pipeline:
    """The provider, its tracer for SPARKIT's own spans, and the node-span memory, for one endpoint."""

    def __init__(self, endpoint: str, project: str) -> None:
        from openinference.instrumentation.langchain import LangChainInstrumentor

        self.endpoint = endpoint
        self.project = project
        self.provider = TracerProvider(
            resource=Resource.create({"service.name": "sparkit", PROJECT_ATTRIBUTE: project}), shutdown_on_exit=False
        )
        self.nodes = NodeSpans()
        self.provider.add_span_processor(self.nodes)
        exporter = RedactingExporter(OTLPSpanExporter(endpoint=endpoint, timeout=EXPORT_TIMEOUT_S))
        self.provider.add_span_processor(BatchSpanProcessor(exporter, export_timeout_millis=EXPORT_TIMEOUT_S * 1000))
        self.tracer: Tracer = self.provider.get_tracer("sparkit")
        self.instrumentor = LangChainInstrumentor()
        self.instrumentor.instrument(tracer_provider=self.provider)

    def flush(self) -> bool:
        """Send what is queued, waiting at most FLUSH_TIMEOUT_S (blocking: run it in a thread on an event loop)."""
        return self.provider.force_flush(int(FLUSH_TIMEOUT_S * 1000))

    def close(self) -> None:
        self.instrumentor.uninstrument()
        self.provider.shutdown()


_pipeline: Pipeline | None = None
_pipeline_lock = threading.Lock()


def pipeline(endpoint: str, project: str) -> Pipeline:
    """The process's pipeline for this endpoint and project (a new one, the old closed, when either changed)."""
    global _pipeline
    with _pipeline_lock:
        if _pipeline is not None and (_pipeline.endpoint, _pipeline.project) == (endpoint, project):
            return _pipeline
        if _pipeline is not None:
            _pipeline.close()
        _pipeline = Pipeline(endpoint, project)
        return _pipeline


def close_pipeline() -> None:
    """Flush and close the pipeline, undoing the LangChain instrumentation (tests; process exit)."""
    global _pipeline
    with _pipeline_lock:
        if _pipeline is not None:
            _pipeline.close()
        _pipeline = None


atexit.register(close_pipeline)
