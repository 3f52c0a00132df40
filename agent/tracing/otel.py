"""OpenTelemetry export of runs, in the OpenInference conventions, to Arize Phoenix or any OTLP/HTTP collector.

Set SPARKIT_OTLP_ENDPOINT (e.g. http://127.0.0.1:6006, Phoenix's default; a bare host gets /v1/traces) and every run
of this process (CLI, Python API, the team server's workers) is exported there: a root span per run (the question in,
the answer out, the run's usage), OpenInference's LangChain spans for each graph node and chat-model call under it,
and SPARKIT's retrievals, stance readings and source calls under their nodes (agent/tracing/otel_spans.py).
SPARKIT_OTLP_PROJECT names the Phoenix project (default `sparkit`). Unset, nothing here imports opentelemetry, so a
plain run pays nothing. The export never fails or blocks a run: spans go out in a background thread, and the end of
a run waits at most FLUSH_TIMEOUT_S for them (agent/tracing/otel_setup.py).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agent.common.redact import redact
from agent.errors import InputError
from agent.records import Answer
from agent.tracing.events import CallLog
from agent.tracing.summarize import cut

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from agent.tracing.otel_setup import Pipeline

ENDPOINT_ENV = "SPARKIT_OTLP_ENDPOINT"
PROJECT_ENV = "SPARKIT_OTLP_PROJECT"
INSTALL_HINT = 'pip install "sparkit[otel]"'

log = logging.getLogger(__name__)


def otlp_endpoint() -> str | None:
    """The OTLP/HTTP traces URL from SPARKIT_OTLP_ENDPOINT (None when unset or empty); a URL without a path gets
    OTLP's /v1/traces. A value that is not an http(s) URL raises InputError, before the run starts."""
    value = os.environ.get(ENDPOINT_ENV, "").strip()
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"{ENDPOINT_ENV} must be an http(s) URL such as http://127.0.0.1:6006 (got {value[:80]!r})")
    return value if parts.path.strip("/") else value.rstrip("/") + "/v1/traces"


def _pipeline(endpoint: str) -> Pipeline:
    try:
        from agent.tracing.otel_setup import pipeline
    except ImportError as exc:
        raise InputError(
            f"{ENDPOINT_ENV} is set but OpenTelemetry export is not installed ({exc.name or exc}): {INSTALL_HINT}"
        ) from None
    return pipeline(endpoint, os.environ.get(PROJECT_ENV, "").strip() or "sparkit")


class OtelRun:
    """One run's root span: opened before the graph starts, made current while it runs (so OpenInference's node
    spans hang under it), given the answer and SPARKIT's own spans at the end, then flushed."""

    def __init__(self, pipe: Pipeline, run_id: str, question: str, mode: str | None, resumed: bool) -> None:
        from opentelemetry import trace

        self.pipe = pipe
        self.calls = CallLog()
        self.final_state: Mapping[str, Any] = {}
        self.span: Span = pipe.tracer.start_span(
            f"sparkit {mode or 'ask'}",
            attributes={
                "openinference.span.kind": "AGENT",
                "input.value": cut(question, 4000),
                "input.mime_type": "text/plain",
                "session.id": run_id,  # Phoenix groups a run's segments (a resumed run) as one session
                "sparkit.run_id": run_id,
                "sparkit.resumed": resumed,
            },
        )
        self._trace = trace
        self.context = self.span.get_span_context()
        pipe.nodes.watch(self.context.trace_id)
        self._start = time.time_ns()

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """The root span as the current span: LangChain runs started inside become its children."""
        with self._trace.use_span(self.span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
            yield

    def finish(self, answer: Answer | None, error: str | None) -> None:
        """Add the retrieval, stance-reading and source-call spans, put the answer and usage on the root, end it."""
        from opentelemetry.trace import Status, StatusCode

        from agent.tracing.otel_setup import NodeSpan
        from agent.tracing.otel_spans import answer_attributes, judge_spans, retrieval_spans, source_call_spans

        nodes = self.pipe.nodes.take(self.context.trace_id)
        root = NodeSpan("sparkit", self._start, time.time_ns(), self.context)
        tracer = self.pipe.tracer
        try:
            retrieval_spans(tracer, root, nodes, self.final_state)
            if answer is not None:
                judge_spans(tracer, root, nodes, answer)
            source_call_spans(tracer, root, nodes, self.calls)
            if answer is not None:
                self.span.set_attributes(answer_attributes(answer))
        except Exception as exc:  # a span SPARKIT could not build must not cost the answer
            log.warning("OpenTelemetry spans of run not built: %s: %s", type(exc).__name__, redact(str(exc))[:200])
        if error:
            self.span.set_status(Status(StatusCode.ERROR, cut(redact(error), 500)))
        self.span.end()

    def flush(self) -> None:
        """Send the run's spans, waiting at most FLUSH_TIMEOUT_S (blocking: call it in a thread from a loop)."""
        if not self.pipe.flush():
            log.warning("OpenTelemetry export to %s did not finish in time; spans may be missing", self.pipe.endpoint)


def ensure_export() -> str | None:
    """Set up the export now when SPARKIT_OTLP_ENDPOINT is set (a server checks at start, not at its first run);
    returns the endpoint, or None when unset. Raises InputError like `start_run`."""
    endpoint = otlp_endpoint()
    if endpoint is not None:
        _pipeline(endpoint)
    return endpoint


def start_run(run_id: str, asked: Mapping[str, Any], resumed: bool) -> OtelRun | None:
    """The run's export when SPARKIT_OTLP_ENDPOINT is set, else None (and nothing imported). Raises InputError when
    the endpoint is malformed or the `otel` extra is missing: the run has not started yet."""
    endpoint = otlp_endpoint()
    if endpoint is None:
        return None
    return OtelRun(_pipeline(endpoint), run_id, str(asked.get("question") or ""), asked.get("mode"), resumed)
