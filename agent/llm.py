"""Chat models: one `RoleModel` per role (fast, strong, second), each from 'provider:model' with its own call settings.

A RoleModel asks for a pydantic schema and returns it, or raises:
- ModelUnavailable: the provider failed after its SDK's retries, the call ran past the role's deadline or the
  run's remaining wall time, or the model's circuit is open after repeated failures (callers fall back to the
  offline role and record it);
- ValueError: no usable reply after the parse retries (each retry is a changed prompt naming the error, and
  near-valid JSON is repaired before it is judged unusable);
- ConfigurationError: the provider refused the key or the model (fails loudly);
- BudgetExceeded: the run's LLM-call or dollar budget is spent.

Provider SDKs are imported lazily. A missing package or key fails loudly with ConfigurationError; nothing silently
falls back to another (hosted) provider.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent.errors import ConfigurationError
from agent.metering import current_meter, wall_time_left

T = TypeVar("T", bound=BaseModel)

# Providers whose LangChain chat class takes `timeout` (seconds per request) and `max_retries` (the SDK's own
# retries, which honour Retry-After on 429 and 5xx). Others get their class defaults.
_TIMEOUT_AWARE_PROVIDERS = frozenset({"openai", "azure_openai", "anthropic", "google_genai", "mistralai", "groq", "deepseek", "xai", "together"})
_REFUSED_STATUS = {401, 403, 404}
MIN_CALL_SECONDS = 1.0  # with less wall time than this left, a role does not call its model


class ModelUnavailable(Exception):
    """The chat model could not answer: provider failure after its SDK's retries, deadline, or open circuit.
    Callers fall back to the offline path and record it; the message carries no secrets."""


# USD per million tokens (input, output); unknown models cost 0 unless llm_price_per_mtok says otherwise.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "anthropic:claude-haiku-4-5": (1.0, 5.0),
    "anthropic:claude-sonnet-4-5": (3.0, 15.0),
    "openai:gpt-4o-mini": (0.15, 0.6),
    "openai:gpt-4.1-mini": (0.4, 1.6),
    "openai:gpt-4o": (2.5, 10.0),
}

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_registry: dict[str, Any] = {}
# The monotonic deadline of the role call in progress; copied into the executor thread a local model generates in.
call_deadline: ContextVar[float | None] = ContextVar("sparkit_call_deadline", default=None)


def register_chat_model(spec: str, model: Any) -> None:
    """Make `spec` resolve to a ready chat model (tests register scripted fakes this way)."""
    _registry[spec] = model


def unregister_chat_model(spec: str) -> None:
    _registry.pop(spec, None)


# ---------------------------------------------------------------------------------------------- role settings
class RoleOptions(BaseModel):
    """How one role's model is called; unset fields take the backend's llm_* settings."""

    model_config = ConfigDict(extra="forbid")

    temperature: float | None = Field(None, description="Sampling temperature.")
    timeout_s: float | None = Field(None, gt=0, description="Per-request timeout (providers whose class takes one).")
    max_retries: int | None = Field(None, ge=0, le=10, description="The provider SDK's retries (Retry-After honoured).")
    structured_output: str | None = Field(None, pattern="^(auto|json_schema|function_calling|json_mode|prompt)$", description="Structured-output method.")
    base_url: str | None = Field(None, description="OpenAI-compatible server URL.")
    deadline_s: float | None = Field(None, gt=0, description="Deadline of one role call (all its attempts), capped by the run's wall time left.")
    parse_retries: int | None = Field(None, ge=0, le=5, description="Attempts after an unusable reply.")
    n_ctx: int | None = Field(None, ge=512, description="Local GGUF: context length.")
    max_tokens: int | None = Field(None, ge=16, description="Output tokens per call.")
    n_threads: int | None = Field(None, ge=1, description="Local GGUF: CPU threads.")
    price_per_mtok: tuple[float, float] | None = Field(None, description="USD per million (input, output) tokens.")


@dataclass(frozen=True)
class RoleConfig:
    """A role's model and every call setting, resolved from the backend settings."""

    role: str
    spec: str
    temperature: float
    timeout_s: float
    max_retries: int
    structured_output: str
    base_url: str | None
    deadline_s: float
    parse_retries: int
    n_ctx: int
    max_tokens: int
    n_threads: int | None
    price_per_mtok: tuple[float, float]
    breaker_failures: int
    breaker_cooldown_s: float


def role_config(settings: Any, role: str) -> RoleConfig | None:
    """The model for `role` ('fast', 'strong', 'second') from BackendSettings: its own spec, else --llm, else the other
    of fast and strong (the second provider has no fallback: unset means none); None when the role has no model."""
    other = {"fast": "strong", "strong": "fast"}.get(role)
    spec = getattr(settings, f"llm_{role}", None) or (settings.llm or getattr(settings, f"llm_{other}", None) if other else None)
    if not spec:
        return None
    own = RoleOptions.model_validate(settings.llm_roles.get(role, {}))
    pick = lambda name, default: getattr(own, name) if getattr(own, name) is not None else default  # noqa: E731
    base_url = pick("base_url", settings.llm_base_url)
    price = pick("price_per_mtok", None) or PRICES_PER_MTOK.get(spec) or settings.llm_price_per_mtok or (0.0, 0.0)
    method = pick("structured_output", settings.llm_structured_output)
    return RoleConfig(
        role=role, spec=spec, temperature=pick("temperature", settings.llm_temperature),
        timeout_s=pick("timeout_s", settings.llm_timeout_s), max_retries=pick("max_retries", settings.llm_max_retries),
        structured_output=default_method(spec, base_url) if method == "auto" else method, base_url=base_url,
        deadline_s=pick("deadline_s", settings.llm_deadline_s), parse_retries=pick("parse_retries", settings.llm_parse_retries),
        n_ctx=pick("n_ctx", settings.llm_n_ctx), max_tokens=pick("max_tokens", settings.llm_max_tokens),
        n_threads=pick("n_threads", settings.llm_n_threads), price_per_mtok=tuple(price),
        breaker_failures=settings.llm_breaker_failures, breaker_cooldown_s=settings.llm_breaker_cooldown_s,
    )


def default_method(spec: str, base_url: str | None) -> str:
    """A structured-output method the provider serves: OpenAI's own API takes json_schema; an OpenAI-compatible
    server (llama.cpp's, vLLM, Ollama's /v1) reliably takes JSON mode; a local GGUF model the JSON asked for in the
    prompt (ChatLlamaCpp's with_structured_output takes no method, and its forced tool call needs a function-calling
    chat format that small instruct models lack); others tool calling."""
    provider = spec.split(":", 1)[0]
    if provider in ("openai", "azure_openai"):
        return "json_mode" if base_url else "json_schema"
    if provider == "llamacpp":
        return "prompt"
    return "function_calling"


# ---------------------------------------------------------------------------------------------- models
def chat_model(spec: str, temperature: float = 0.0, timeout_s: float = 60.0, max_retries: int = 3, *,
               base_url: str | None = None, n_ctx: int = 8192, max_tokens: int | None = None, n_threads: int | None = None) -> Any:
    """A LangChain chat model for 'provider:model', with a per-request timeout and SDK retries where the
    provider's class takes them (_TIMEOUT_AWARE_PROVIDERS)."""
    if spec in _registry:
        return _registry[spec]
    if ":" not in spec:
        raise ConfigurationError(f"--llm must look like provider:model (got {spec!r})")
    if spec.startswith("llamacpp:"):
        return _local_gguf(spec.split(":", 1)[1], temperature, n_ctx, max_tokens or 1024, n_threads)
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ConfigurationError("a chat model needs the 'live' extra: pip install 'sparkit[live]' plus the provider package") from None
    provider, model = spec.split(":", 1)
    limits: dict[str, Any] = {"timeout": timeout_s, "max_retries": max_retries} if provider in _TIMEOUT_AWARE_PROVIDERS else {}
    if base_url:
        limits["base_url"] = base_url
    if max_tokens is not None and provider in ("openai", "azure_openai") and base_url:
        limits["max_tokens"] = max_tokens  # a local server's default output length is often too short for a batch
    try:
        return init_chat_model(model, model_provider=provider, temperature=temperature, **limits)
    except ImportError as exc:
        raise ConfigurationError(f"provider {provider!r} needs its package: {exc.name or exc}") from None
    except Exception as exc:  # missing key and friends: say what, never echo secrets
        raise ConfigurationError(f"cannot create chat model {spec}: {type(exc).__name__}: {_first_line(exc)}") from None


def _local_gguf(model_path: str, temperature: float, n_ctx: int, max_tokens: int, n_threads: int | None) -> Any:
    """A local GGUF model through llama-cpp (extra 'local'; see the README for the build flags)."""
    from pathlib import Path

    path = Path(model_path).expanduser()
    if not path.is_file():
        raise ConfigurationError(f"GGUF model file not found: {path}")
    try:
        import llama_cpp  # noqa: F401 - fail here, not at the first call
        from langchain_community.chat_models import ChatLlamaCpp  # noqa: F401 - likewise
    except ImportError:
        raise ConfigurationError("a local GGUF model needs the 'local' extra: pip install 'sparkit[local]'") from None
    threads = {"n_threads": n_threads} if n_threads else {}
    return _local_chat_class()(model_path=str(path), temperature=temperature, n_ctx=n_ctx, max_tokens=max_tokens, verbose=False, **threads)


class LocalModelGuard:
    """A local model generates in an executor thread that outlives a role's deadline (asyncio cannot stop it): one
    generation at a time on the model's context (llama.cpp's is not thread-safe), none started past the deadline, and a
    running one ends at the deadline (the end-of-text token is forced) instead of running on for minutes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def run(self, generate: Callable[[list], T], eos: int) -> T:
        """`generate(logits_processors)` under the lock, with a processor that ends the reply once the deadline
        passes."""
        deadline = call_deadline.get()
        with self.lock:
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError("the role's deadline passed while the local model was busy")
            return generate([] if deadline is None else [stop_at(deadline, eos)])


def stop_at(deadline: float, eos: int) -> Callable[[Any, Any], Any]:
    """A llama.cpp logits processor: past `deadline`, only the end-of-text token can be sampled."""
    import numpy as np

    def processor(_input_ids: Any, scores: Any) -> Any:
        if time.monotonic() < deadline:
            return scores
        forced = np.full_like(scores, -np.inf)
        forced[eos] = 0.0
        return forced

    return processor


# One guard per loaded llama.cpp model, forgotten with the model (keyed by the model object, not its id(), which a
# later model may reuse); the lock makes "get or create" atomic, so two threads never get two guards for one model.
_local_guards: weakref.WeakKeyDictionary[Any, LocalModelGuard] = weakref.WeakKeyDictionary()
_local_guards_lock = threading.Lock()


def local_guard(model: Any) -> LocalModelGuard:
    """The guard that serialises generations on `model` (created on first use)."""
    with _local_guards_lock:
        guard = _local_guards.get(model)
        if guard is None:
            guard = _local_guards[model] = LocalModelGuard()
        return guard


def _local_chat_class() -> type:
    """ChatLlamaCpp whose generations go through the model's LocalModelGuard (imported lazily: extra 'local')."""
    import llama_cpp
    from langchain_community.chat_models import ChatLlamaCpp

    class LocalChat(ChatLlamaCpp):
        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            guard = local_guard(self.client)
            parent = super()._generate

            def generate(processors: list) -> Any:
                extra = {"logits_processor": llama_cpp.LogitsProcessorList(processors)} if processors else {}
                return parent(messages, stop, run_manager, **kwargs, **extra)

            return guard.run(generate, self.client.token_eos())

    return LocalChat


def _first_line(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return re.sub(r"(sk-|key-)[A-Za-z0-9_\-]{6,}", "[redacted]", text)[:200]


def strip_think(text: str) -> str:
    return _THINK.sub("", text or "").strip()


# ---------------------------------------------------------------------------------------------- replies
def _extract_json(text: str) -> str:
    text = strip_think(text)
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fenced:
        text = fenced.group(1)
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    return text[start:] if start >= 0 else text


def parse_reply(text: str, schema: type[T]) -> T:
    """The schema from a model's text: strict JSON first, then near-valid JSON repaired (trailing commas, single
    quotes, a missing bracket, prose around it); raises ValidationError or ValueError when neither fits."""
    candidate = _extract_json(text)
    try:
        return schema.model_validate_json(candidate)
    except ValidationError as strict_error:
        from json_repair import repair_json

        repaired = repair_json(candidate, return_objects=True)
        if isinstance(repaired, list) and len(schema.model_fields) == 1:  # a bare list for a one-list schema
            repaired = {next(iter(schema.model_fields)): repaired}
        if not isinstance(repaired, dict) or not repaired:
            raise strict_error
        return schema.model_validate(repaired)


def _estimate_tokens(value: Any) -> int:
    return max(1, len(str(value)) // 4) if value else 0


def _meter_response(message: Any, price: tuple[float, float], prompt_chars: str) -> None:
    """Tokens from usage_metadata, or estimated (4 characters a token) when the provider reports none (llama.cpp)."""
    meta = getattr(message, "usage_metadata", None) or {}
    tokens_in = int(meta.get("input_tokens", 0)) or _estimate_tokens(prompt_chars)
    reply = getattr(message, "content", "") or json.dumps(getattr(message, "tool_calls", None) or "", default=str)
    tokens_out = int(meta.get("output_tokens", 0)) or _estimate_tokens(reply if message is not None else "")
    current_meter().add_tokens(tokens_in, tokens_out, (tokens_in * price[0] + tokens_out * price[1]) / 1e6)


def _provider_failure(spec: str, exc: Exception) -> Exception:
    """A provider exception as ConfigurationError (key, permission or model refused: fail loudly) or
    ModelUnavailable (anything else, after the SDK's own retries: the caller falls back)."""
    from langchain_core.exceptions import ModelAuthenticationError, ModelNotFoundError, ModelPermissionDeniedError

    what = f"{type(exc).__name__}: {_first_line(exc)}"
    refused = (ModelAuthenticationError, ModelPermissionDeniedError, ModelNotFoundError)
    if isinstance(exc, refused) or getattr(exc, "status_code", None) in _REFUSED_STATUS:
        return ConfigurationError(f"chat model {spec} refused the request: {what}")
    return ModelUnavailable(f"chat model {spec} failed: {what}")


def _is_connection_failure(exc: BaseException) -> bool:
    """Nothing answered at all (server down, connection refused): no point trying again soon."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionError) or "Connect" in type(seen).__name__:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


# ---------------------------------------------------------------------------------------------- circuit breaker
@dataclass
class CircuitBreaker:
    """Opens after `failures` consecutive provider failures (at once when nothing answers at all), so the roles
    stop waiting on a dead or overloaded model; after `cooldown_s` the model is tried again."""

    failures: int = 2
    cooldown_s: float = 300.0
    consecutive: int = 0
    opened_at: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def is_open(self) -> bool:
        with self._lock:
            if self.opened_at is None:
                return False
            if time.monotonic() - self.opened_at >= self.cooldown_s:
                self.opened_at, self.consecutive = None, 0  # half-open: the next call decides
                return False
            return True

    def record(self, ok: bool, unreachable: bool = False) -> None:
        with self._lock:
            self.consecutive = 0 if ok else self.consecutive + 1
            if not ok and (unreachable or self.consecutive >= self.failures):
                self.opened_at = time.monotonic()


_breakers: dict[tuple[str, str | None], CircuitBreaker] = {}
_breakers_lock = threading.Lock()


def breaker_for(config: RoleConfig) -> CircuitBreaker:
    """One breaker per model endpoint, shared by the roles that use it."""
    with _breakers_lock:
        key = (config.spec, config.base_url)
        if key not in _breakers:
            _breakers[key] = CircuitBreaker(config.breaker_failures, config.breaker_cooldown_s)
        return _breakers[key]


def reset_breakers() -> None:
    with _breakers_lock:
        _breakers.clear()


# ---------------------------------------------------------------------------------------------- the role
class RoleModel:
    """One role's chat model and how it is called (RoleConfig): structured output with repair, changed-prompt
    retries, a deadline inside the run's wall time, and the model's circuit breaker."""

    def __init__(self, model: Any, config: RoleConfig, breaker: CircuitBreaker | None = None):
        self.model = model
        self.config = config
        self.breaker = breaker or breaker_for(config)

    @property
    def spec(self) -> str:
        return self.config.spec

    @classmethod
    def build(cls, config: RoleConfig) -> "RoleModel":
        return cls(chat_model(config.spec, config.temperature, config.timeout_s, config.max_retries, base_url=config.base_url,
                              n_ctx=config.n_ctx, max_tokens=config.max_tokens, n_threads=config.n_threads), config)

    def _seconds_left(self) -> float:
        left = wall_time_left()
        return self.config.deadline_s if left is None else min(self.config.deadline_s, left)

    async def structured(self, system: str, user: str, schema: type[T], prompts_dir: str | None = None) -> T:
        from agent.prompts import prompt

        if self.breaker.is_open():
            raise ModelUnavailable(f"chat model {self.spec}: circuit open after repeated failures")
        seconds = self._seconds_left()
        if seconds < MIN_CALL_SECONDS:
            raise ModelUnavailable(f"chat model {self.spec}: no wall time left for the {self.config.role} role")
        deadline = time.monotonic() + seconds
        call_deadline.set(deadline)  # a local model's generation stops here too (LocalModelGuard)
        schema_text = json.dumps(schema.model_json_schema())
        messages: list[tuple[str, str]] = [("system", system), ("user", user)]
        last_error = "no reply"
        for attempt in range(self.config.parse_retries + 1):
            current_meter().reserve_llm_call()
            if attempt:  # a changed prompt: what went wrong, and the schema spelled out
                messages = [("system", system), ("user", user), ("user", prompt("retry", prompts_dir, error=last_error, schema=schema_text))]
            remaining = deadline - time.monotonic()
            if remaining < MIN_CALL_SECONDS:
                self.breaker.record(ok=False)
                raise ModelUnavailable(f"chat model {self.spec}: the {self.config.role} role's deadline "
                    f"({self.config.deadline_s:.0f} s or the wall budget) passed")
            try:
                result = await asyncio.wait_for(self._attempt(messages, schema, schema_text, prompts_dir), timeout=remaining)
            except asyncio.TimeoutError:
                self.breaker.record(ok=False)
                raise ModelUnavailable(f"chat model {self.spec}: no reply within the {self.config.role} role's deadline "
                    f"({remaining:.0f} s)") from None
            except ModelUnavailable as exc:
                self.breaker.record(ok=False, unreachable=_is_connection_failure(exc))
                raise
            self.breaker.record(ok=True)
            if isinstance(result, schema):
                return result
            last_error = str(result)  # not the schema: the description of why the reply was unusable
        raise ValueError(f"chat model gave no valid {schema.__name__} after {self.config.parse_retries + 1} attempts: "
            f"{last_error}")

    async def _attempt(self, messages: list[tuple[str, str]], schema: type[T], schema_text: str, prompts_dir: str | None) -> T | str:
        """One request: the schema, or a short description of why the reply was unusable."""
        from agent.prompts import prompt

        method = self.config.structured_output
        json_note = [("user", prompt("json_only", prompts_dir, schema=schema_text))]
        prompt_chars = " ".join(text for _, text in messages)
        if method != "prompt":
            try:
                runnable = self.model.with_structured_output(schema, method=method, include_raw=True)
            except (NotImplementedError, ValueError, TypeError):
                method = "prompt"
        if method == "prompt":
            message = await self._invoke(self.model, messages + json_note)
            _meter_response(message, self.config.price_per_mtok, prompt_chars)
            return _parsed_or_reason(str(getattr(message, "content", "")), schema)
        result = await self._invoke(runnable, messages + (json_note if method == "json_mode" else []))
        raw = result.get("raw")
        _meter_response(raw, self.config.price_per_mtok, prompt_chars)
        parsed = result.get("parsed")
        if parsed is not None:
            try:
                return parsed if isinstance(parsed, schema) else schema.model_validate(parsed)
            except ValidationError as exc:
                return _reason(exc)
        calls = getattr(raw, "tool_calls", None) or []
        text = json.dumps(calls[0].get("args", {})) if calls else str(getattr(raw, "content", "") or "")
        if not text.strip():
            return ("empty reply "
                f"({type(result.get('parsing_error')).__name__ if result.get('parsing_error') else 'no content'})")
        return _parsed_or_reason(text, schema)

    async def _invoke(self, runnable: Any, messages: list) -> Any:
        try:
            return await runnable.ainvoke(messages)
        except (NotImplementedError, ValidationError):
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the provider's: rate limit, 5xx, timeout, network, refused key
            failure = _provider_failure(self.spec, exc)
            raise failure from exc


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first: dict[str, Any] = dict(exc.errors()[0]) if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ())) or "reply"
        return f"{where}: {first.get('msg', 'invalid')}"
    return f"{type(exc).__name__}: {str(exc)[:120]}"


def _parsed_or_reason(text: str, schema: type[T]) -> T | str:
    try:
        return parse_reply(text, schema)
    except (ValidationError, ValueError) as exc:
        return _reason(exc)


async def structured_call(model: Any, spec: str, system: str, user: str, schema: type[T], retries: int = 2) -> T:
    """One structured call outside a role (scripts, tests): the model's class-default method, no deadline."""
    config = RoleConfig(role="call", spec=spec, temperature=0.0, timeout_s=60.0, max_retries=0, structured_output="function_calling",
                        base_url=None, deadline_s=3600.0, parse_retries=retries, n_ctx=8192, max_tokens=1024, n_threads=None,
                        price_per_mtok=PRICES_PER_MTOK.get(spec, (0.0, 0.0)), breaker_failures=1_000_000, breaker_cooldown_s=0.0)
    return await RoleModel(model, config, CircuitBreaker(1_000_000, 0.0)).structured(system, user, schema)
