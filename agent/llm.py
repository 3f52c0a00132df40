"""Chat models: creation from 'provider:model', structured output with retries, and metering.

Provider SDKs are imported lazily. A missing package or key fails loudly with ConfigurationError;
nothing silently falls back to another (hosted) provider.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agent.errors import ConfigurationError
from agent.metering import current_meter

T = TypeVar("T", bound=BaseModel)

# Providers whose LangChain chat class takes `timeout` (seconds per request) and `max_retries` (the SDK's own
# retries, which honour Retry-After on 429 and 5xx). Others get their class defaults.
_TIMEOUT_AWARE_PROVIDERS = frozenset({"openai", "azure_openai", "anthropic", "google_genai", "mistralai", "groq", "deepseek", "xai", "together"})
_REFUSED_STATUS = {401, 403, 404}


class ModelUnavailable(Exception):
    """The chat model could not answer after its SDK's retries: rate limit, server error, timeout, network.
    Callers fall back to the offline path and record it; the message carries no secrets."""

# USD per million tokens (input, output); unknown models cost 0 and are reported as unpriced.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "anthropic:claude-haiku-4-5": (1.0, 5.0),
    "anthropic:claude-sonnet-4-5": (3.0, 15.0),
    "openai:gpt-4o-mini": (0.15, 0.6),
    "openai:gpt-4.1-mini": (0.4, 1.6),
    "openai:gpt-4o": (2.5, 10.0),
}

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_registry: dict[str, Any] = {}


def register_chat_model(spec: str, model: Any) -> None:
    """Make `spec` resolve to a ready chat model (tests register scripted fakes this way)."""
    _registry[spec] = model


def unregister_chat_model(spec: str) -> None:
    _registry.pop(spec, None)


def chat_model(spec: str, temperature: float = 0.0, timeout_s: float = 60.0, max_retries: int = 3) -> Any:
    """A LangChain chat model for 'provider:model', with a per-request timeout and SDK retries where the
    provider's class takes them (_TIMEOUT_AWARE_PROVIDERS)."""
    if spec in _registry:
        return _registry[spec]
    if ":" not in spec:
        raise ConfigurationError(f"--llm must look like provider:model (got {spec!r})")
    if spec.startswith("llamacpp:"):
        return _local_gguf(spec.split(":", 1)[1], temperature)
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ConfigurationError("a chat model needs the 'live' extra: pip install 'sparkit[live]' plus the provider package") from None
    provider, model = spec.split(":", 1)
    limits = {"timeout": timeout_s, "max_retries": max_retries} if provider in _TIMEOUT_AWARE_PROVIDERS else {}
    try:
        return init_chat_model(model, model_provider=provider, temperature=temperature, **limits)
    except ImportError as exc:
        raise ConfigurationError(f"provider {provider!r} needs its package: {exc.name or exc}") from None
    except Exception as exc:  # missing key and friends: say what, never echo secrets
        raise ConfigurationError(f"cannot create chat model {spec}: {type(exc).__name__}: {_first_line(exc)}") from None


def _local_gguf(model_path: str, temperature: float) -> Any:
    """A local GGUF model through llama-cpp (extra 'local'; see the README for the build flags)."""
    from pathlib import Path

    path = Path(model_path).expanduser()
    if not path.is_file():
        raise ConfigurationError(f"GGUF model file not found: {path}")
    try:
        from langchain_community.chat_models import ChatLlamaCpp
        import llama_cpp  # noqa: F401 - fail here, not at the first call
    except ImportError:
        raise ConfigurationError("a local GGUF model needs the 'local' extra: pip install 'sparkit[local]'") from None
    return ChatLlamaCpp(model_path=str(path), temperature=temperature, n_ctx=4096, max_tokens=512, verbose=False)


def _first_line(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return re.sub(r"(sk-|key-)[A-Za-z0-9_\-]{6,}", "[redacted]", text)[:200]


def strip_think(text: str) -> str:
    return _THINK.sub("", text or "").strip()


def _extract_json(text: str) -> str:
    text = strip_think(text)
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fenced:
        text = fenced.group(1)
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    return text[start:] if start >= 0 else text


def _meter_response(message: Any, spec: str) -> None:
    meta = getattr(message, "usage_metadata", None) or {}
    tokens_in, tokens_out = int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0))
    price_in, price_out = PRICES_PER_MTOK.get(spec, (0.0, 0.0))
    current_meter().add_tokens(tokens_in, tokens_out, (tokens_in * price_in + tokens_out * price_out) / 1e6)


def _provider_failure(spec: str, exc: Exception) -> Exception:
    """A provider exception as ConfigurationError (key, permission or model refused: fail loudly) or
    ModelUnavailable (anything else, after the SDK's own retries: the caller falls back)."""
    from langchain_core.exceptions import ModelAuthenticationError, ModelNotFoundError, ModelPermissionDeniedError

    what = f"{type(exc).__name__}: {_first_line(exc)}"
    refused = (ModelAuthenticationError, ModelPermissionDeniedError, ModelNotFoundError)
    if isinstance(exc, refused) or getattr(exc, "status_code", None) in _REFUSED_STATUS:
        return ConfigurationError(f"chat model {spec} refused the request: {what}")
    return ModelUnavailable(f"chat model {spec} failed: {what}")


async def _invoke(spec: str, runnable: Any, messages: list) -> Any:
    try:
        return await runnable.ainvoke(messages)
    except (NotImplementedError, ValidationError):
        raise
    except Exception as exc:  # the provider's: rate limit, 5xx, timeout, network, refused key
        raise _provider_failure(spec, exc) from None


async def structured_call(model: Any, spec: str, system: str, user: str, schema: type[T], retries: int = 2) -> T:
    """Ask for `schema`; tool-calling structured output first, JSON parsing of the text as fallback.

    Each attempt reserves one LLM call from the run's budget (BudgetExceeded propagates).
    Raises ValueError after `retries` failed parses, ModelUnavailable when the provider fails after its SDK's
    retries, ConfigurationError when it refuses the key or the model.
    """
    messages = [("system", system), ("user", user)]
    last_error: Exception | None = None
    for _ in range(retries + 1):
        current_meter().reserve_llm_call()
        try:
            runnable = model.with_structured_output(schema, include_raw=True)
            result = await _invoke(spec, runnable, messages)
            _meter_response(result.get("raw"), spec)
            if result.get("parsed") is not None:
                return result["parsed"] if isinstance(result["parsed"], schema) else schema.model_validate(result["parsed"])
            raw = result.get("raw")
            content = getattr(raw, "content", "") if raw is not None else ""
            if content:
                return schema.model_validate_json(_extract_json(str(content)))
            last_error = result.get("parsing_error") or ValueError("no structured output")
        except NotImplementedError:
            message = await _invoke(spec, model, [*messages, ("user", f"Answer with JSON only, matching this schema: {json.dumps(schema.model_json_schema())}")])
            _meter_response(message, spec)
            try:
                return schema.model_validate_json(_extract_json(str(message.content)))
            except ValidationError as exc:
                last_error = exc
        except ValidationError as exc:
            last_error = exc
    raise ValueError(f"chat model gave no valid {schema.__name__} after {retries + 1} attempts: {type(last_error).__name__}")
