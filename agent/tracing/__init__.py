"""Local run traces: a LangChain tracer that writes JSONL run trees under $SPARKIT_HOME/traces, the
agent's decision and source-call events, one redaction function for everything written, and terminal/HTML
views of a trace (`sparkit trace list|show|html`). See docs/tracing.md.
"""

from agent.common.redact import redact, register_secret
from agent.tracing.session import TraceSession, tracing_enabled
from agent.tracing.store import list_traces, load_trace, resolve_run_id, trace_path, traces_dir

__all__ = [
    "TraceSession",
    "list_traces",
    "load_trace",
    "redact",
    "register_secret",
    "resolve_run_id",
    "trace_path",
    "traces_dir",
    "tracing_enabled",
]
