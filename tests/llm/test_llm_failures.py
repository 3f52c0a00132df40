"""A chat provider that fails after its SDK's retries (429, 5xx, timeout) sends the role to its offline
fallback, recorded in usage and without secrets; a refused key or model fails loudly; requests carry a timeout."""

from __future__ import annotations

import pytest
from langchain_core.exceptions import ModelAuthenticationError, ModelRateLimitError, ModelTimeoutError

from agent.backend.judging_parts import reasoner_and_stance
from agent.config import Context
from agent.errors import ConfigurationError
from agent.judges.llm import LLMStanceJudge
from agent.llm.model import structured_call
from agent.llm.providers import ModelUnavailable
from agent.metering import metered
from agent.reasoners.chat import ChatReasoner
from agent.reasoners.extractive import ExtractiveReasoner
from tests.fakes import BagOfWordsEmbedder, RuleStance, role_model

KEY = "sk-live-SECRET1234567890"


class StatusError(Exception):
    """An SDK error LangChain did not classify, carrying the HTTP status as SDKs do."""

    def __init__(self, message: str, status_code: int):
        super().__init__(message)
        self.status_code = status_code


class FailingModel:
    """Duck-typed chat model whose every request raises `error`."""

    def __init__(self, error: Exception):
        self.error = error
        self.requests = 0

    def with_structured_output(self, schema, include_raw=False):
        return self

    async def ainvoke(self, messages):
        self.requests += 1
        raise self.error


PAIRS = [
    ("Statins increase muscle pain", "Statins increases muscle pain in older adults."),
    ("Statins increase muscle pain", "Statins decreases muscle pain compared with placebo."),
]


@pytest.mark.parametrize(
    "error",
    [
        ModelRateLimitError(f"429 Too Many Requests for key {KEY}"),
        ModelTimeoutError("Request timed out."),
        StatusError("503 Service Unavailable", 503),
        ConnectionError("connection reset by peer"),
    ],
)
async def test_stance_falls_back_to_the_offline_judge_and_says_so(error):
    model = FailingModel(error)
    judge = LLMStanceJudge(role_model(model), RuleStance())
    with metered() as meter:
        results = await judge.judge(PAIRS)
    assert [r.stance for r in results] == ["SUPPORT", "CONTRADICT"]  # the offline judge's readings
    assert model.requests == 1, "the SDK already retried; the call is not repeated on top"
    assert len(meter.usage.fallbacks) == 1 and meter.usage.fallbacks[0].startswith(
        "stance: rule judged 2 of 2 pairs (ModelUnavailable"
    )
    assert KEY not in " ".join(meter.usage.fallbacks)


async def test_provider_failure_message_is_redacted():
    with pytest.raises(ModelUnavailable) as caught:
        await structured_call(
            FailingModel(ModelRateLimitError(f"rate limited, key {KEY}")), "fake:model", "s", "u", Context
        )
    assert KEY not in str(caught.value) and "ModelRateLimitError" in str(caught.value)


@pytest.mark.parametrize(
    "error", [ModelAuthenticationError(f"invalid x-api-key {KEY}"), StatusError("model not found", 404)]
)
async def test_a_refused_key_or_model_fails_loudly(error):
    judge = LLMStanceJudge(role_model(FailingModel(error)), RuleStance())
    with metered(), pytest.raises(ConfigurationError, match="refused the request") as caught:
        await judge.judge(PAIRS)
    assert KEY not in str(caught.value)


async def test_reasoner_roles_fall_back_to_extractive():
    extractive = ExtractiveReasoner(BagOfWordsEmbedder())
    role = role_model(FailingModel(ModelTimeoutError("Request timed out.")))
    chat = ChatReasoner(role, role, extractive)
    with metered() as meter:
        plan = await chat.plan("Do statins increase muscle pain?", [])
    assert plan == await extractive.plan("Do statins increase muscle pain?", [])
    assert meter.usage.fallbacks and "ModelUnavailable" in meter.usage.fallbacks[0]


def test_requests_carry_the_configured_timeout_and_retries(monkeypatch):
    import langchain.chat_models

    made = []
    monkeypatch.setattr(
        langchain.chat_models, "init_chat_model", lambda model, **kwargs: made.append((model, kwargs)) or object()
    )
    embedder, offline = BagOfWordsEmbedder(), RuleStance()
    reasoner_and_stance(
        Context(llm="anthropic:claude-haiku-4-5", llm_timeout_s=12.5, llm_max_retries=5).models,
        Context().judges,
        embedder,
        offline,
    )
    assert made[-1] == (
        "claude-haiku-4-5",
        {"model_provider": "anthropic", "temperature": 0.0, "timeout": 12.5, "max_retries": 5},
    )
    reasoner_and_stance(
        Context(llm="ollama:llama3").models, Context().judges, embedder, offline
    )  # its class takes neither keyword
    assert made[-1] == ("llama3", {"model_provider": "ollama", "temperature": 0.0})
