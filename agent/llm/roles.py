"""Which chat model each role (fast, strong, second) uses and every setting of its calls, resolved from the backend
settings; the known models' prices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# USD per million tokens (input, output); unknown models cost 0 unless llm_price_per_mtok says otherwise.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "anthropic:claude-haiku-4-5": (1.0, 5.0),
    "anthropic:claude-sonnet-4-5": (3.0, 15.0),
    "openai:gpt-4o-mini": (0.15, 0.6),
    "openai:gpt-4.1-mini": (0.4, 1.6),
    "openai:gpt-4o": (2.5, 10.0),
}


# ---------------------------------------------------------------------------------------------- role settings
class RoleOptions(BaseModel):
    """How one role's model is called; unset fields take the backend's llm_* settings."""

    model_config = ConfigDict(extra="forbid")

    temperature: float | None = Field(None, description="Sampling temperature.")
    timeout_s: float | None = Field(None, gt=0, description="Per-request timeout (providers whose class takes one).")
    max_retries: int | None = Field(None, ge=0, le=10, description="The provider SDK's retries (Retry-After honoured).")
    structured_output: str | None = Field(
        None, pattern="^(auto|json_schema|function_calling|json_mode|prompt)$", description="Structured-output method."
    )
    base_url: str | None = Field(None, description="OpenAI-compatible server URL.")
    deadline_s: float | None = Field(
        None, gt=0, description="Deadline of one role call (all its attempts), capped by the run's wall time left."
    )
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
    """The model for `role` ('fast', 'strong', 'second') from ModelSettings: its own spec, else --llm, else the other
    of fast and strong (the second provider has no fallback: unset means none); None when the role has no model."""
    other = {"fast": "strong", "strong": "fast"}.get(role)
    spec = getattr(settings, f"llm_{role}", None) or (
        settings.llm or getattr(settings, f"llm_{other}", None) if other else None
    )
    if not spec:
        return None
    own = RoleOptions.model_validate(settings.llm_roles.get(role, {}))
    pick = lambda name, default: getattr(own, name) if getattr(own, name) is not None else default  # noqa: E731
    base_url = pick("base_url", settings.llm_base_url)
    price = pick("price_per_mtok", None) or PRICES_PER_MTOK.get(spec) or settings.llm_price_per_mtok or (0.0, 0.0)
    method = pick("structured_output", settings.llm_structured_output)
    return RoleConfig(
        role=role,
        spec=spec,
        temperature=pick("temperature", settings.llm_temperature),
        timeout_s=pick("timeout_s", settings.llm_timeout_s),
        max_retries=pick("max_retries", settings.llm_max_retries),
        structured_output=default_method(spec, base_url) if method == "auto" else method,
        base_url=base_url,
        deadline_s=pick("deadline_s", settings.llm_deadline_s),
        parse_retries=pick("parse_retries", settings.llm_parse_retries),
        n_ctx=pick("n_ctx", settings.llm_n_ctx),
        max_tokens=pick("max_tokens", settings.llm_max_tokens),
        n_threads=pick("n_threads", settings.llm_n_threads),
        price_per_mtok=tuple(price),
        breaker_failures=settings.llm_breaker_failures,
        breaker_cooldown_s=settings.llm_breaker_cooldown_s,
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
