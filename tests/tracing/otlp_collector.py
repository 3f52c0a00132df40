"""An in-process OTLP/HTTP trace collector on 127.0.0.1 for the export tests: it decodes each
ExportTraceServiceRequest (protobuf, as opentelemetry-proto defines it) into plain dicts, one per span."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in any_value.kvlist_value.values}
    return getattr(any_value, kind) if kind else None


def decode(body: bytes) -> list[dict[str, Any]]:
    """The spans of one export request: name, ids (hex), parent id, times, attributes, resource attributes."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        resource = {kv.key: _value(kv.value) for kv in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append(
                    {
                        "name": span.name,
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent_id": span.parent_span_id.hex() or None,
                        "start": span.start_time_unix_nano,
                        "end": span.end_time_unix_nano,
                        "status": span.status.code,
                        "attributes": {kv.key: _value(kv.value) for kv in span.attributes},
                        "resource": resource,
                        "scope": scope_spans.scope.name,
                    }
                )
    return spans


class Collector:
    """`with Collector() as c:` serves http://127.0.0.1:PORT/v1/traces; `c.spans` holds what arrived, `c.raw` the
    request bodies."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                collector.raw.append(body)
                collector.spans += decode(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Collector:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
