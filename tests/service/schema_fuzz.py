"""Schemathesis over the operations `sparkit serve` serves, driven by langgraph-api's openapi.json (the one
tests/service/openapi.py pins): generated paths, queries, headers and bodies sent to a running server, each response
checked for a server error, a status the operation does not declare, a content type and a shape it does not declare.

Generated ids would only ever name unknown threads, so a share of the cases is pointed at the caller's own: a thread
with a finished run and its checkpoints (`Live`), or a fresh empty thread; a share of the run bodies names the one
assistant and carries a question, so that a generated run reaches the queue and the worker and not only the 404/422
that a random assistant id or input gets."""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, status_code_conformance
from starlette.routing import Route

from agent.service.http_api import create_app
from agent.service.service import Service
from tests.service.openapi import DECLARED_200_ANSWERED_202, response_errors, spec

REQUEST_TIMEOUT_S = 120.0
"""A request that waits for a run (runs/wait, /join, runs/stream) waits as long as the scripted run takes, seconds;
one still silent after this long is a hang, and counted as a failure."""

ANSWERED_BEYOND_THE_SPEC = {
    401: "every route but /ok and /info needs a key; langgraph-api's openapi.json declares no authentication",
    404: "an unknown thread, run or checkpoint, or another user's (tests/service/openapi.py: on every route)",
    409: "a thread with a run pending or running (tests/service/openapi.py: on every route)",
    413: "a body over --max-body-bytes",
    400: "a body that is not a JSON object",
}
"""Statuses SPARKIT answers where an operation's openapi.json entry does not list them, each for the reason given
(always with a JSON `detail`, as langgraph-api's own errors)."""

SUCCESS_AS_LANGGRAPH_API = {("DELETE", "/threads/{thread_id}"): 204, **dict.fromkeys(DECLARED_200_ANSWERED_202, 202)}
"""Where langgraph-api itself answers another 2xx than its openapi.json declares (204 for a delete, 202 for a
cancel), SPARKIT answers as the server does."""


def served_routes() -> set[tuple[str, str]]:
    """(METHOD, route template) of every operation `sparkit serve` answers."""
    app = create_app(Service("postgresql://unused@127.0.0.1:1/none"))
    return {
        (method, route.path)
        for route in app.routes
        if isinstance(route, Route)
        for method in route.methods or ()
        if method != "HEAD"
    }


def served_schema() -> Any:
    """langgraph-api's openapi.json as Schemathesis reads it, limited to the operations SPARKIT serves."""
    served = served_routes()
    schema = schemathesis.openapi.from_dict(spec())
    return schema.include(lambda ctx: (ctx.operation.method.upper(), ctx.operation.path) in served)


@dataclass
class Live:
    """The caller's own ids that a share of the cases is pointed at, and how to make a fresh thread."""

    base_url: str
    key: str
    thread_id: str
    run_id: str
    checkpoint_id: str
    session: requests.Session = field(default_factory=requests.Session)

    def fresh_thread(self) -> str:
        made = self.session.post(f"{self.base_url}/threads", json={}, headers={"x-api-key": self.key}, timeout=30)
        made.raise_for_status()
        return str(made.json()["thread_id"])


@dataclass
class Tally:
    """What a run of the fuzzer did: operations walked, cases sent, by status, and each failure in one paragraph."""

    operations: int = 0
    cases: int = 0
    per_operation: dict[str, int] = field(default_factory=dict)
    statuses: dict[int, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def line(self) -> str:
        by_status = ", ".join(f"{s}: {n}" for s, n in sorted(self.statuses.items()))
        return f"{self.operations} operations, {self.cases} cases, {len(self.failures)} failures (statuses {by_status})"


RUN_CREATING = {"/threads/{thread_id}/runs", "/threads/{thread_id}/runs/stream", "/threads/{thread_id}/runs/wait"}
QUESTION = "Does aerobic exercise increase hippocampal volume in older adults?"


def _point_at_live(case: Any, aim: int, live: Live, question: str) -> None:
    """Aim 0 keeps the generated case; 1 puts the live thread's ids in its path (and in a new thread's body), 2 a
    fresh empty thread's; on the run routes, 1 and 2 also name the assistant, and 2 asks `question` (the rest of the
    body stays generated)."""
    if aim == 0:
        return
    params = case.path_parameters
    if "thread_id" in params:
        fresh = aim == 2 or (case.method.upper() == "DELETE" and case.path == "/threads/{thread_id}")
        params["thread_id"] = live.fresh_thread() if fresh else live.thread_id
    if "run_id" in params:
        params["run_id"] = live.run_id
    if "checkpoint_id" in params:
        params["checkpoint_id"] = live.checkpoint_id
    if (case.method.upper(), case.path) == ("POST", "/threads") and isinstance(case.body, dict) and aim == 1:
        case.body["thread_id"] = live.thread_id
    if case.path in RUN_CREATING and isinstance(case.body, dict):
        case.body["assistant_id"] = "sparkit"
        if aim == 2:
            case.body["input"] = {"question": question}


def _content_type(response: Any) -> str:
    return str((response.headers.get("content-type") or [""])[0])


EVENTS = {"metadata", "error", "values", "updates", "custom", "debug", "checkpoints", "tasks"}


def assert_server_sent_events(text: str) -> None:
    """A stream as langgraph-sdk reads it: events of a known name, each with JSON data, `metadata` first.
    (openapi.json gives the whole stream the schema {"type": "string"}, which Schemathesis applies to each parsed
    event, which no server can meet; the events are checked here instead.)"""
    events = [block for block in text.split("\n\n") if block.strip() and not block.startswith(":")]
    assert events, f"an empty event stream: {text[:300]!r}"
    names = []
    for block in events:
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        assert fields.get("event") in EVENTS, block[:300]
        json.loads(fields["data"])
        names.append(fields["event"])
    assert names[0] == "metadata", names


def conforms(case: Any, response: Any) -> None:
    """Schemathesis's checks (no 5xx; a declared status and content type), then the body's shape: JSON against the
    schema openapi.json gives that status (tests/service/openapi.py, with the nulls langgraph-api itself writes), or
    server-sent events. The statuses of ANSWERED_BEYOND_THE_SPEC and SUCCESS_AS_LANGGRAPH_API pass where undeclared:
    the first as JSON with a `detail`, the second with the shape of the declared 200."""
    method, status = case.method.upper(), response.status_code
    declared = {str(s) for s in case.operation.responses.status_codes}
    as_langgraph_api = status == SUCCESS_AS_LANGGRAPH_API.get((method, case.path))
    checks: list[Callable[..., Any]] = [not_a_server_error]
    if str(status) in declared:
        checks += [status_code_conformance, content_type_conformance]
    elif not as_langgraph_api and status not in ANSWERED_BEYOND_THE_SPEC:
        checks.append(status_code_conformance)
    case.validate_response(response, checks=checks)
    if status == 204:
        assert not response.content, response.text[:300]
    elif _content_type(response).startswith("text/event-stream"):
        assert_server_sent_events(response.text)
    else:
        assert _content_type(response).startswith("application/json"), (status, response.headers)
        body = json.loads(response.text)
        if str(status) in declared or as_langgraph_api:
            errors = response_errors(case.path, method, 200 if as_langgraph_api else status, body)
            assert not errors, errors
        else:
            assert isinstance(body, dict) and isinstance(body.get("detail"), str), response.text[:300]


def fuzz_operation(
    operation: Any,
    live: Live,
    tally: Tally,
    *,
    cases: int,
    headers: dict[str, str],
    expect: Callable[[Any, Any], None] = conforms,
    aims: tuple[int, ...] = (0, 1, 2),
    derandomize: bool = True,
) -> None:
    """`cases` generated cases of one operation (positive and negative, from its openapi.json entry) sent with
    `headers`; each failure is recorded in `tally` after Hypothesis shrank it to its smallest request."""
    strategy = st.one_of(
        operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
        operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
    )

    @settings(
        max_examples=cases,
        deadline=None,
        database=None,
        derandomize=derandomize,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @given(case=strategy, aim=st.sampled_from(aims), question=st.sampled_from([QUESTION, "", "x" * 5, "¿" * 3]))
    def send(case: Any, aim: int, question: str) -> None:
        _point_at_live(case, aim, live, question)
        response = case.call(base_url=live.base_url, headers=headers, session=live.session, timeout=REQUEST_TIMEOUT_S)
        tally.cases += 1
        tally.per_operation[operation.label] = tally.per_operation.get(operation.label, 0) + 1
        tally.statuses[response.status_code] = tally.statuses.get(response.status_code, 0) + 1
        try:
            expect(case, response)
        except AssertionError as exc:
            exc.add_note(f"{response.status_code}: {response.text[:500]}\n{case.as_curl_command()}")
            raise

    tally.operations += 1
    try:
        send()
    except (Exception, BaseExceptionGroup) as exc:  # every failure of every operation is reported, not the first
        tally.failures.append(f"{operation.label}: " + "".join(traceback.format_exception(exc))[-4000:])


def fuzz(
    live: Live,
    *,
    cases: int,
    headers: dict[str, str],
    expect: Callable[[Any, Any], None] = conforms,
    aims: tuple[int, ...] = (0, 1, 2),
) -> Tally:
    """Every served operation, `cases` generated cases each (fewer where its inputs have fewer values): the same
    cases on every run, new ones each run with SPARKIT_FUZZ_RANDOM=1 (to search further than CI does)."""
    tally = Tally()
    derandomize = os.environ.get("SPARKIT_FUZZ_RANDOM") != "1"
    for result in served_schema().get_all_operations():
        operation = result.ok()
        fuzz_operation(
            operation, live, tally, cases=cases, headers=headers, expect=expect, aims=aims, derandomize=derandomize
        )
    return tally


OPEN_ROUTES = {("GET", "/ok"), ("GET", "/info")}


def refused(case: Any, response: Any) -> None:
    """Without a key, or with a wrong one: 401 with the reason on every operation but /ok and /info."""
    if (case.method.upper(), case.path) in OPEN_ROUTES:
        conforms(case, response)
        return
    assert response.status_code == 401, (response.status_code, response.text[:300])
    conforms(case, response)


def kept_from(owner: Live, *private: str) -> Callable[[Any, Any], None]:
    """With another user's key, aimed at `owner`'s ids: as declared, never a 2xx on `owner`'s thread, and none of
    `private` (the owner's metadata, question, ids of checkpoints) in any answer."""

    def expect(case: Any, response: Any) -> None:
        conforms(case, response)
        leaked = [text for text in private if text in response.text]
        assert not leaked, (leaked, response.status_code, response.text[:300])
        if "thread_id" in case.path_parameters:
            assert response.status_code >= 400, (response.status_code, response.text[:300])

    return expect
