"""The chat roles through the real langchain-openai client against an OpenAI-compatible server on loopback (what
llama.cpp's server, vLLM and Ollama's /v1 speak): each structured-output method sends what such a server takes, the
reply is parsed, tokens are metered from the server's usage, and a server that is down stops the roles at once."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("langchain_openai")

from agent.llm.circuit import reset_breakers
from agent.llm.model import RoleModel
from agent.llm.providers import ModelUnavailable
from agent.llm.roles import role_config
from agent.metering import metered
from agent.reasoners.chat import PlanOut
from agent.settings.models import ModelSettings


class FakeOpenAI(ThreadingHTTPServer):
    """POST /v1/chat/completions: records each request body, answers with the next scripted reply
    (a str is message content; a dict is one tool call's arguments)."""

    def __init__(self, replies: list):
        super().__init__(("127.0.0.1", 0), Handler)
        self.replies, self.requests = list(replies), []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, body))
        reply = self.server.replies.pop(0) if len(self.server.replies) > 1 else self.server.replies[0]
        if isinstance(reply, dict):
            name = body["tools"][0]["function"]["name"]
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(reply)}}
                ],
            }
        else:
            message = {"role": "assistant", "content": reply}
        payload = json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if isinstance(reply, dict) else "stop",
                    }
                ],
                "usage": {"prompt_tokens": 321, "completion_tokens": 45, "total_tokens": 366},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def server(monkeypatch, request):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-not-a-real-key")
    reset_breakers()
    fake = FakeOpenAI(request.param if hasattr(request, "param") else ['{"queries": ["metformin insulin"]}'])
    thread = threading.Thread(target=fake.serve_forever, daemon=True)
    thread.start()
    yield fake
    fake.shutdown()
    fake.server_close()
    reset_breakers()


def role(url: str, **settings) -> RoleModel:
    return RoleModel.build(role_config(ModelSettings(llm="openai:local-model", llm_base_url=url, **settings), "fast"))


async def test_json_mode_is_the_default_for_an_openai_compatible_server(server):
    model = role(server.url, llm_max_tokens=700)
    assert model.config.structured_output == "json_mode"
    with metered() as meter:
        out = await model.structured("You plan searches.", "Question: what does metformin do?", PlanOut)
    assert out.queries == ["metformin insulin"]
    path, body = server.requests[0]
    assert (
        path == "/v1/chat/completions"
        and body["model"] == "local-model"
        and 700 in (body.get("max_tokens"), body.get("max_completion_tokens"))
    ), body.keys()
    assert body["response_format"] == {"type": "json_object"} and "tools" not in body
    assert "JSON schema" in body["messages"][-1]["content"], "JSON mode needs the schema in the prompt"
    assert (meter.usage.tokens_in, meter.usage.tokens_out, meter.usage.llm_calls) == (321, 45, 1)


@pytest.mark.parametrize("server", [[{"queries": ["statin myopathy"], "entities": ["statin"]}]], indirect=True)
async def test_function_calling_sends_the_schema_as_a_tool(server):
    model = role(server.url, llm_structured_output="function_calling")
    with metered():
        out = await model.structured("You plan searches.", "Question: do statins cause myopathy?", PlanOut)
    assert out.queries == ["statin myopathy"] and out.entities == ["statin"]
    body = server.requests[0][1]
    assert body["tools"][0]["function"]["name"] == "PlanOut" and "response_format" not in body


async def test_json_schema_sends_a_response_format_schema(server):
    model = role(server.url, llm_structured_output="json_schema")
    with metered():
        out = await model.structured("You plan searches.", "Question: what does metformin do?", PlanOut)
    assert out.queries == ["metformin insulin"]
    body = server.requests[0][1]
    assert (
        body["response_format"]["type"] == "json_schema" and body["response_format"]["json_schema"]["name"] == "PlanOut"
    )


@pytest.mark.parametrize(
    "server", [["Here you go: {'queries': ['metformin insulin',],}", '{"queries": ["unused"]}']], indirect=True
)
async def test_near_valid_json_from_a_small_model_is_repaired_without_a_retry(server):
    model = role(server.url)
    with metered() as meter:
        out = await model.structured("You plan searches.", "Question: what does metformin do?", PlanOut)
    assert out.queries == ["metformin insulin"] and meter.usage.llm_calls == 1 and len(server.requests) == 1


async def test_a_server_that_is_down_stops_the_roles_at_once(server):
    url = server.url
    server.shutdown()
    server.server_close()  # nothing listens on the port now
    model = role(url, llm_max_retries=0, llm_timeout_s=5)
    with metered(), pytest.raises(ModelUnavailable, match="Connection"):
        await model.structured("s", "u", PlanOut)
    with metered(), pytest.raises(ModelUnavailable, match="circuit open"):
        await model.structured("s", "u", PlanOut)
