"""API keys and authorization headers never appear in traces, logs, errors or JSON output."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from agent.cli import main
from agent.common.redact import RedactingFilter
from agent.config import sparkit_home
from agent.literature import Record
from agent.tools.http import CallEvent, call_events
from agent.tracing import load_trace, redact, register_secret
from tests.fakes import ListSource
from tests.tracing.helpers import CLAIM, DOCS, kinds, scripted_backend

KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant-dummy123456",
    "COHERE_API_KEY": "cohere-dummy-7f3a9c",
    "VOYAGE_API_KEY": "pa-voyage-dummy-55e1",
    "BRAVE_API_KEY": "BSAbraveDummy0042",
    "SEMANTIC_SCHOLAR_API_KEY": "s2-dummy-key-9b8c7d",
    "CROSSREF_PLUS_TOKEN": "crossref-plus-dummy-31",
}


@pytest.fixture
def dummy_keys(monkeypatch):
    monkeypatch.delenv("SPARKIT_TRACE", raising=False)  # the CLI's default (tracing on) is what is scanned
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    return KEYS


def assert_no_key(text: str, where: str) -> None:
    for name, value in KEYS.items():
        assert value not in text, f"{name} leaked into {where}"


@pytest.mark.parametrize(
    "text",
    [
        "GET https://api.example.org/search?q=x&api_key=abcdef123456&limit=3",
        "GET /res/v1/web/search?key=abcdef123456",
        "headers: {'Authorization': 'Bearer abcdef123456'}",
        'headers: {"x-api-key": "abcdef123456"}',
        "X-Subscription-Token: abcdef123456",
        "authorization=Bearer abcdef123456",
        "the client used sk-abcdef123456 to call",
        "token=abcdef123456&x=1",
    ],
)
def test_secret_shapes_are_masked(text):
    clean = redact(text)
    assert "abcdef123456" not in clean and "[REDACTED]" in clean


def test_env_and_registered_values_are_masked_anywhere(dummy_keys):
    text = " ".join(dummy_keys.values()) + " and " + json.dumps({"k": 'with"quote-secret-value'})
    register_secret('with"quote-secret-value')
    clean = redact(text)
    assert_no_key(clean, "redacted text")
    assert "quote-secret-value" not in clean
    assert clean.count("[REDACTED]") == len(dummy_keys) + 1


def test_plain_text_is_left_alone(dummy_keys):
    text = "Aerobic exercise increases hippocampal volume (n=120, p<0.01); key findings: tokens_in=5, max_tokens=10."
    assert redact(text) == text


def test_log_records_are_redacted(dummy_keys):
    args = ("https://x.org/?api_key=zzz9999999", dummy_keys["BRAVE_API_KEY"])
    record = logging.LogRecord("agent.tools", logging.WARNING, __file__, 1, "retrying %s with %s", args, None)
    RedactingFilter().filter(record)
    assert_no_key(record.getMessage(), "a log line")
    assert "zzz9999999" not in record.getMessage()


class LeakySource(ListSource):
    """A source written carelessly: its call events carry the key in the URL, a header and the error, and
    it logs the key. The trace, the logs and the output must still show none of it."""

    async def search(self, query: str, *, limit: int) -> list[Record]:
        key = os.environ["BRAVE_API_KEY"]
        events = call_events.get()
        assert events is not None, "the API should collect call events while tracing"
        events.append(
            CallEvent(
                source="leaky",
                host="api.search.example",
                method="GET",
                path=f"/search?q=exercise&key={key}",
                status=401,
                attempts=3,
                error=f"HTTP 401: invalid X-Subscription-Token {key}; Authorization: Bearer "
                f"{os.environ['ANTHROPIC_API_KEY']}",
            )
        )
        logging.getLogger("agent.tools.leaky").warning("search failed with key %s", key)
        return await super().search(query, limit=limit)


def test_offline_cli_run_leaks_no_key_anywhere(dummy_keys, capsys, caplog):
    backend = scripted_backend([LeakySource(DOCS, name="leaky")])
    with caplog.at_level(logging.WARNING):
        assert main(["verify", CLAIM, "--set", f"backend={backend}", "--json"]) == 0
    out, err = capsys.readouterr()
    payload = json.loads(out)
    assert_no_key(out, "the JSON output")
    assert_no_key(err, "stderr (progress and messages)")
    assert_no_key("\n".join(r.getMessage() for r in caplog.records), "the log")

    # the trace really holds the leaky events, redacted
    records = load_trace(payload["run_id"])
    calls = kinds(records, "source_call")
    assert calls and all("[REDACTED]" in c["path"] and "[REDACTED]" in c["error"] for c in calls)

    # and no file under SPARKIT_HOME (traces, index, checkpoints, caches) holds a key, in any encoding
    files = [p for p in Path(sparkit_home()).rglob("*") if p.is_file()]
    assert any(p.suffix == ".jsonl" for p in files) and any("checkpoints" in p.name for p in files)
    for path in files:
        data = path.read_bytes()
        for name, value in dummy_keys.items():
            assert value.encode() not in data and value.encode("utf-16-le") not in data, f"{name} found in {path}"


def test_trace_views_leak_no_key(dummy_keys, capsys, tmp_path):
    backend = scripted_backend([LeakySource(DOCS, name="leaky")])
    assert main(["verify", CLAIM, "--set", f"backend={backend}", "-q"]) == 0
    capsys.readouterr()
    assert main(["trace", "show", "latest"]) == 0
    assert main(["trace", "list", "--json"]) == 0
    assert main(["trace", "html", "latest", "-o", str(tmp_path / "t.html")]) == 0
    out, err = capsys.readouterr()
    assert_no_key(out + err, "trace show/list output")
    assert_no_key((tmp_path / "t.html").read_text(), "the HTML page")
    assert "leaky" in out and "[REDACTED]" in out


def test_error_messages_leak_no_key(dummy_keys, capsys):
    class Exploding(ListSource):
        async def search(self, query, *, limit):
            raise RuntimeError(f"upstream said: bad key {os.environ['COHERE_API_KEY']}")

    from agent.api import ask

    answer = ask(CLAIM, mode="verify", backend=scripted_backend([Exploding(DOCS)]), trace=True)
    assert_no_key(answer.model_dump_json(), "the answer")
    assert_no_key(Path(sparkit_home(), "traces", f"{answer.run_id}.jsonl").read_text(), "the trace")
