"""Scripted, model-free implementations of the backend interfaces for fast graph tests."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import numpy as np
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from agent.backend import Backend
from agent.common.text import content_terms
from agent.config import Context
from agent.errors import SourceError
from agent.interfaces import HopFilter, StanceResult
from agent.literature import Record
from agent.llm.circuit import CircuitBreaker
from agent.llm.model import RoleModel
from agent.llm.roles import role_config
from agent.reasoners.chat import ChatReasoner
from agent.reasoners.extractive import ExtractiveReasoner
from agent.records import STANCE_LABELS
from agent.scoring.calibration import RawScore
from agent.settings.models import ModelSettings


class BagOfWordsEmbedder:
    """Deterministic hashed bag-of-words vectors: similar wording, similar vectors; no model load."""

    name = "bow"
    dim = 256

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for term in content_terms(text):
                out[i, int(hashlib.md5(term.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)

    async def embed(self, texts: list[str], *, kind: str = "document") -> np.ndarray:
        return self.encode(texts)


class ListSource:
    """A literature source over a fixed list of records, ranked by term overlap; can fail on demand."""

    def __init__(
        self,
        records: list[Record],
        name: str = "list",
        neighbours: dict[str, list[Record]] | None = None,
        fail: bool = False,
    ):
        self.records = records
        self.name = name
        self._neighbours = neighbours or {}
        self.supports_citations = bool(neighbours)
        self.fail = fail
        self.queries: list[str] = []

    async def search(self, query: str, *, limit: int) -> list[Record]:
        self.queries.append(query)
        if self.fail:
            raise SourceError(self.name, "HTTP 503 after 3 attempts")
        terms = set(content_terms(query))
        scored = [(len(terms & set(content_terms(r.text))), r) for r in self.records]
        return [r.model_copy(deep=True) for s, r in sorted(scored, key=lambda x: -x[0]) if s > 0][:limit]

    async def neighbours(self, record: Record, *, limit: int, gate: HopFilter | None = None) -> list[Record]:
        return [r.model_copy(deep=True) for r in self._neighbours.get(record.id, []) if gate is None or gate.keeps(r)][
            :limit
        ]


class OverlapReranker:
    name = "overlap"

    async def rerank(self, query: str, documents: list[str]) -> list[float]:
        terms = set(content_terms(query))
        return [len(terms & set(content_terms(d))) / (len(terms) or 1) for d in documents]


class RuleStance:
    """SUPPORT when the passage contains `support_word`, CONTRADICT when it contains `contradict_word`."""

    name = "rule"

    def __init__(self, support_word: str = "increases", contradict_word: str = "decreases", confidence: float = 0.9):
        self.support_word, self.contradict_word, self.confidence = support_word, contradict_word, confidence
        self.calls = 0

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        self.calls += 1
        out = []
        for _, passage in pairs:
            text = passage.lower()
            if self.contradict_word in text:
                out.append(StanceResult(stance="CONTRADICT", confidence=self.confidence))
            elif self.support_word in text:
                out.append(StanceResult(stance="SUPPORT", confidence=self.confidence))
            else:
                out.append(StanceResult(stance="NEUTRAL", confidence=0.9))
        return out


class FixedStance:
    """A judge that gives every pair the same probabilities (STANCE_LABELS order), as the offline judges give them."""

    def __init__(self, name: str, probabilities: list[float]):
        self.name, self.probabilities = name, probabilities
        self.calls: list[list[tuple[str, str]]] = []

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        self.calls.append(pairs)
        return [StanceResult.from_probabilities(STANCE_LABELS, self.probabilities) for _ in pairs]


class FlakyStance(RuleStance):
    """Fails on its first call, like a crash in the court node; works after that."""

    def __init__(self):
        super().__init__()
        self.fail_next = True

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("stance service crashed")
        return await super().judge(pairs)


class ScriptedChatModel(GenericFakeChatModel):
    """GenericFakeChatModel that accepts bind_tools, so with_structured_output works (langgraph-notes)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self


class SchemaChat(BaseChatModel):
    """A scripted chat model that answers by the schema it was asked for: `replies[schema name]` is a list of
    replies used in turn (the last one repeats). A dict is returned as that schema's tool call, a str as text
    content, an Exception is raised. `requests` records (schema name, messages) of every call."""

    replies: dict[str, list[Any]]
    bound: str | None = None
    requests: list[tuple[str | None, list[Any]]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "schema-fake"

    def bind_tools(self, tools: Any, **kwargs: Any) -> SchemaChat:
        tool = tools[0]
        return self.model_copy(update={"bound": tool.__name__ if isinstance(tool, type) else str(tool)})

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.requests.append((self.bound, list(messages)))
        queue = self.replies.get(self.bound or "text") or self.replies.get("*") or [""]
        reply = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(reply, Exception):
            raise reply
        usage = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
        if isinstance(reply, str):
            message = AIMessage(content=reply, usage_metadata=usage)
        else:
            message = AIMessage(
                content="", tool_calls=[{"name": self.bound, "args": reply, "id": "call-1"}], usage_metadata=usage
            )
        return ChatResult(generations=[ChatGeneration(message=message)])


def tool_message(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": name, "args": args, "id": f"call-{name}"}],
        usage_metadata={"input_tokens": 100, "output_tokens": 20, "total_tokens": 120},
    )


def scripted_chat(messages: Iterable[AIMessage]) -> ScriptedChatModel:
    return ScriptedChatModel(messages=iter(list(messages)))


def role_model(model: Any, spec: str = "fake:model", **options: Any) -> RoleModel:
    """A RoleModel around a (scripted) chat model with the default call settings, its own circuit breaker and the
    class-default structured-output method; `options` override ModelSettings' llm_* fields (without the prefix)."""
    settings = ModelSettings(llm=spec, **{f"llm_{k}" if k != "llm_roles" else k: v for k, v in options.items()})
    config = replace(
        role_config(settings, "fast"), structured_output=options.get("structured_output", "function_calling")
    )
    return RoleModel(model, config, CircuitBreaker(config.breaker_failures, config.breaker_cooldown_s))


def chat_reasoner(model: Any, embedder: Any = None, spec: str = "fake:model", **options: Any) -> ChatReasoner:
    """The chat reasoner with one scripted model in both roles (fast and strong)."""
    role = role_model(model, spec, **options)
    return ChatReasoner(role, role, ExtractiveReasoner(embedder or BagOfWordsEmbedder()))


def make_backend(
    sources: list[ListSource],
    stance: Any = None,
    reasoner: Any = None,
    second_opinion: Any = None,
    calibrator: Any = None,
    offline_calibrator: Any = None,
) -> Callable[[Context, Any], Backend]:
    """A backend factory for register_backend()."""
    embedder = BagOfWordsEmbedder()

    def factory(settings: Context, documents: Any = None) -> Backend:
        return Backend(
            name="scripted",
            sources=sources,
            embedder=embedder,
            reranker=OverlapReranker(),
            stance=stance or RuleStance(),
            reasoner=reasoner or ExtractiveReasoner(embedder),
            second_opinion=second_opinion,
            calibrator=calibrator or RawScore(),
            offline_calibrator=offline_calibrator,
        )

    return factory


def record(rid: str, title: str, *sentences: str, **extra: Any) -> Record:
    return Record(id=rid, source="list", source_type="local", title=title, sentences=list(sentences), **extra)


_counter = itertools.count()


def unique_backend_name() -> str:
    return f"scripted-{next(_counter)}"
