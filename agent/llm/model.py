"""Chat models: one `RoleModel` per role (fast, strong, second), each from 'provider:model' with its own call settings.

A RoleModel asks for a pydantic schema and returns it, or raises:
- ModelUnavailable: the provider failed after its SDK's retries, the call ran past the role's deadline or the
  run's remaining wall time, or the model's circuit is open after repeated failures (callers fall back to the
  offline role and record it);
- ValueError: no usable reply after the parse retries (each retry resends the bad reply with the error it had and
  the schema spelled out, and near-valid JSON is repaired before it is judged unusable; every retry is counted in
  usage.llm_retries);
- ConfigurationError: the provider refused the key or the model (fails loudly);
- BudgetExceeded: the run's LLM-call or dollar budget is spent.

Provider SDKs are imported lazily. A missing package or key fails loudly with ConfigurationError; nothing silently
falls back to another (hosted) provider.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agent.llm.circuit import CircuitBreaker, breaker_for
from agent.llm.local import call_deadline
from agent.llm.providers import ModelUnavailable, chat_model, is_connection_failure, provider_failure
from agent.llm.replies import Unusable, parsed_or_unusable, unusable_reason
from agent.llm.roles import PRICES_PER_MTOK, RoleConfig
from agent.metering import current_meter, wall_time_left

T = TypeVar("T", bound=BaseModel)

MIN_CALL_SECONDS = 1.0  # with less wall time than this left, a role does not call its model
RETRY_REPLY_CHARS = 4000  # how much of a bad reply a retry resends (the model sees what it wrote, not all of it)


def _estimate_tokens(value: Any) -> int:
    return max(1, len(str(value)) // 4) if value else 0


def _meter_response(message: Any, price: tuple[float, float], prompt_chars: str) -> None:
    """Tokens from usage_metadata, or estimated (4 characters a token) when the provider reports none (llama.cpp)."""
    meta = getattr(message, "usage_metadata", None) or {}
    tokens_in = int(meta.get("input_tokens", 0)) or _estimate_tokens(prompt_chars)
    reply = getattr(message, "content", "") or json.dumps(getattr(message, "tool_calls", None) or "", default=str)
    tokens_out = int(meta.get("output_tokens", 0)) or _estimate_tokens(reply if message is not None else "")
    current_meter().add_tokens(tokens_in, tokens_out, (tokens_in * price[0] + tokens_out * price[1]) / 1e6)


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
    def build(cls, config: RoleConfig) -> RoleModel:
        return cls(
            chat_model(
                config.spec,
                config.temperature,
                config.timeout_s,
                config.max_retries,
                base_url=config.base_url,
                n_ctx=config.n_ctx,
                max_tokens=config.max_tokens,
                n_threads=config.n_threads,
            ),
            config,
        )

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
        last = Unusable("no reply", "")
        for attempt in range(self.config.parse_retries + 1):
            current_meter().reserve_llm_call(retry=attempt > 0)
            if attempt:  # the bad reply resent, what was wrong with it, and the schema spelled out
                messages = [
                    ("system", system),
                    ("user", user),
                    *([("ai", last.reply[:RETRY_REPLY_CHARS])] if last.reply.strip() else []),
                    ("user", prompt("retry", prompts_dir, error=last.reason, schema=schema_text)),
                ]
            remaining = deadline - time.monotonic()
            if remaining < MIN_CALL_SECONDS:
                self.breaker.record(ok=False)
                raise ModelUnavailable(
                    f"chat model {self.spec}: the {self.config.role} role's deadline "
                    f"({self.config.deadline_s:.0f} s or the wall budget) passed"
                )
            try:
                result = await asyncio.wait_for(
                    self._attempt(messages, schema, schema_text, prompts_dir), timeout=remaining
                )
            except TimeoutError:
                self.breaker.record(ok=False)
                raise ModelUnavailable(
                    f"chat model {self.spec}: no reply within the {self.config.role} role's deadline "
                    f"({remaining:.0f} s)"
                ) from None
            except ModelUnavailable as exc:
                self.breaker.record(ok=False, unreachable=is_connection_failure(exc))
                raise
            self.breaker.record(ok=True)
            if not isinstance(result, Unusable):
                return result
            last = result
        raise ValueError(
            f"chat model gave no valid {schema.__name__} after {self.config.parse_retries + 1} attempts: {last.reason}"
        )

    async def _attempt(
        self, messages: list[tuple[str, str]], schema: type[T], schema_text: str, prompts_dir: str | None
    ) -> T | Unusable:
        """One request: the schema, or why the reply was unusable and the reply itself."""
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
            return parsed_or_unusable(str(getattr(message, "content", "")), schema)
        result = await self._invoke(runnable, messages + (json_note if method == "json_mode" else []))
        raw = result.get("raw")
        _meter_response(raw, self.config.price_per_mtok, prompt_chars)
        parsed = result.get("parsed")
        calls = getattr(raw, "tool_calls", None) or []
        text = json.dumps(calls[0].get("args", {})) if calls else str(getattr(raw, "content", "") or "")
        if parsed is not None:
            try:
                return parsed if isinstance(parsed, schema) else schema.model_validate(parsed)
            except ValidationError as exc:
                return Unusable(unusable_reason(exc), text or json.dumps(parsed, default=str))
        if not text.strip():
            return Unusable(
                "empty reply "
                f"({type(result.get('parsing_error')).__name__ if result.get('parsing_error') else 'no content'})",
                "",
            )
        return parsed_or_unusable(text, schema)

    async def _invoke(self, runnable: Any, messages: list) -> Any:
        try:
            return await runnable.ainvoke(messages)
        except (NotImplementedError, ValidationError):
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the provider's: rate limit, 5xx, timeout, network, refused key
            failure = provider_failure(self.spec, exc)
            raise failure from exc


async def structured_call(model: Any, spec: str, system: str, user: str, schema: type[T], retries: int = 2) -> T:
    """One structured call outside a role (scripts, tests): the model's class-default method, no deadline."""
    config = RoleConfig(
        role="call",
        spec=spec,
        temperature=0.0,
        timeout_s=60.0,
        max_retries=0,
        structured_output="function_calling",
        base_url=None,
        deadline_s=3600.0,
        parse_retries=retries,
        n_ctx=8192,
        max_tokens=1024,
        n_threads=None,
        price_per_mtok=PRICES_PER_MTOK.get(spec, (0.0, 0.0)),
        breaker_failures=1_000_000,
        breaker_cooldown_s=0.0,
    )
    return await RoleModel(model, config, CircuitBreaker(1_000_000, 0.0)).structured(system, user, schema)
