"""A LangChain chat model for 'provider:model', and a provider's failures read as a refusal (fail loudly) or an
unavailable model (fall back)."""

from __future__ import annotations

import re
from typing import Any

from agent.errors import ConfigurationError
from agent.llm.local import local_gguf

# Providers whose LangChain chat class takes `timeout` (seconds per request) and `max_retries` (the SDK's own
# retries, which honour Retry-After on 429 and 5xx). Others get their class defaults.
_TIMEOUT_AWARE_PROVIDERS = frozenset(
    {"openai", "azure_openai", "anthropic", "google_genai", "mistralai", "groq", "deepseek", "xai", "together"}
)
_REFUSED_STATUS = {401, 403, 404}


class ModelUnavailable(Exception):
    """The chat model could not answer: provider failure after its SDK's retries, deadline, or open circuit.
    Callers fall back to the offline path and record it; the message carries no secrets."""


_registry: dict[str, Any] = {}


def register_chat_model(spec: str, model: Any) -> None:
    """Make `spec` resolve to a ready chat model (tests register scripted fakes this way)."""
    _registry[spec] = model


def unregister_chat_model(spec: str) -> None:
    _registry.pop(spec, None)


# ---------------------------------------------------------------------------------------------- models
def chat_model(
    spec: str,
    temperature: float = 0.0,
    timeout_s: float = 60.0,
    max_retries: int = 3,
    *,
    base_url: str | None = None,
    n_ctx: int = 8192,
    max_tokens: int | None = None,
    n_threads: int | None = None,
) -> Any:
    """A LangChain chat model for 'provider:model', with a per-request timeout and SDK retries where the
    provider's class takes them (_TIMEOUT_AWARE_PROVIDERS)."""
    if spec in _registry:
        return _registry[spec]
    if ":" not in spec:
        raise ConfigurationError(f"--llm must look like provider:model (got {spec!r})")
    if spec.startswith("llamacpp:"):
        return local_gguf(spec.split(":", 1)[1], temperature, n_ctx, max_tokens or 1024, n_threads)
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ConfigurationError(
            "a chat model needs the 'live' extra: pip install 'sparkit[live]' plus the provider package"
        ) from None
    provider, model = spec.split(":", 1)
    limits: dict[str, Any] = {}
    if provider in _TIMEOUT_AWARE_PROVIDERS:
        limits.update(timeout=timeout_s, max_retries=max_retries)
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


def _first_line(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return re.sub(r"(sk-|key-)[A-Za-z0-9_\-]{6,}", "[redacted]", text)[:200]


def provider_failure(spec: str, exc: Exception) -> Exception:
    """A provider exception as ConfigurationError (key, permission or model refused: fail loudly) or
    ModelUnavailable (anything else, after the SDK's own retries: the caller falls back)."""
    from langchain_core.exceptions import ModelAuthenticationError, ModelNotFoundError, ModelPermissionDeniedError

    what = f"{type(exc).__name__}: {_first_line(exc)}"
    refused = (ModelAuthenticationError, ModelPermissionDeniedError, ModelNotFoundError)
    if isinstance(exc, refused) or getattr(exc, "status_code", None) in _REFUSED_STATUS:
        return ConfigurationError(f"chat model {spec} refused the request: {what}")
    return ModelUnavailable(f"chat model {spec} failed: {what}")


def is_connection_failure(exc: BaseException) -> bool:
    """Nothing answered at all (server down, connection refused): no point trying again soon."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionError) or "Connect" in type(seen).__name__:
            return True
        seen = seen.__cause__ or seen.__context__
    return False
