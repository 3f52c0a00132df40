"""langgraph-api's openapi.json (installed with langgraph-api, which `langgraph dev` runs): the routes it declares and
the schema of each response, to check what `sparkit serve` answers against."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from starlette.testclient import TestClient


@cache
def spec() -> dict[str, Any]:
    api = pytest.importorskip("langgraph_api", reason="langgraph-api (pip install -e '.[dev]') ships openapi.json")
    path = Path(api.__file__).resolve().parents[1] / "openapi.json"
    if not path.is_file():
        pytest.skip(f"langgraph-api {getattr(api, '__version__', '')} ships no openapi.json at {path}")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def declared(path: str, method: str) -> dict[str, Any]:
    """The operation openapi.json declares for this route template and method (KeyError when none)."""
    return dict(spec()["paths"][path][method.lower()])


def template_of(url_path: str) -> str:
    """The openapi.json route template a concrete path matches, the most literal one first (/threads/search before
    /threads/{thread_id})."""
    matching = [
        template
        for template in spec()["paths"]
        if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template.rstrip("/")) + "/?", url_path)
    ]
    if not matching:
        raise KeyError(url_path)
    return min(matching, key=lambda template: template.count("{"))


NULL_AS_LANGGRAPH_API = re.compile(
    r"^((.*/)?(parent_checkpoint|checkpoint|created_at)|(.*/)?tasks/\d+/(error|checkpoint|state))$"
)
"""Where langgraph-api itself writes null (its state.py: no parent for the first checkpoint, none yet for a new thread,
a task without error or subgraph state) and its openapi.json allows no null: the same null is accepted here."""


def response_errors(path: str, method: str, status: int, body: Any) -> list[str]:
    """Where `body` breaks the schema openapi.json gives this route's `status` response ([] when it conforms), a null
    where langgraph-api writes one aside."""
    responses = declared(path, method)["responses"]
    found = responses.get(str(status)) or responses.get("default")
    if found is None and status in (404, 409):  # an unknown (or another user's) thread, a busy one: on every route
        found = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}}
    if found is None:
        return [f"{method} {path} declares no {status} response (it has {sorted(responses)})"]
    schema = found.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return []
    rooted = {**schema, "components": spec()["components"]}  # so that '#/components/...' resolves
    validator = Draft202012Validator(rooted, format_checker=FormatChecker())
    errors = []
    for error in validator.iter_errors(body):
        where = "/".join(map(str, error.absolute_path)) or "body"
        if error.instance is None and NULL_AS_LANGGRAPH_API.match(where):
            continue
        errors.append(f"{where}: {error.message[:200]}")
    return errors


DECLARED_200_ANSWERED_202 = {("POST", "/threads/{thread_id}/runs/{run_id}/cancel")}
"""langgraph-api itself answers a cancel with 202 (its api/runs.py) where its openapi.json declares 200; SPARKIT answers
as the server does, and the body is checked against the declared 200."""


class CheckedClient:
    """A TestClient whose every JSON response is checked against openapi.json as it arrives."""

    def __init__(self, client: TestClient, key: str):
        self.client, self.key = client, key
        self.checked: list[str] = []

    def call(self, method: str, path: str, status: int = 200, **kwargs: Any) -> Any:
        response = self.client.request(method, path, headers={"x-api-key": self.key}, **kwargs)
        assert response.status_code == status, (method, path, response.status_code, response.text[:500])
        template = template_of(path.split("?")[0])
        body = json.loads(response.text) if response.text.strip() else None
        if body is not None:
            declared_status = 200 if (method, template) in DECLARED_200_ANSWERED_202 and status == 202 else status
            errors = response_errors(template, method, declared_status, body)
            assert not errors, (method, template, errors)
        self.checked.append(f"{method} {template} {status}")
        return body
