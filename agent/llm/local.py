"""A local GGUF model through llama-cpp, whose generations run one at a time and end at the role's deadline."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from pydantic import BaseModel

from agent.errors import ConfigurationError

T = TypeVar("T", bound=BaseModel)

# The monotonic deadline of the role call in progress; copied into the executor thread a local model generates in.
call_deadline: ContextVar[float | None] = ContextVar("sparkit_call_deadline", default=None)


def local_gguf(model_path: str, temperature: float, n_ctx: int, max_tokens: int, n_threads: int | None) -> Any:
    """A local GGUF model through llama-cpp (extra 'local'; its build flags: docs/live.md, "A local GGUF model")."""
    from pathlib import Path

    path = Path(model_path).expanduser()
    if not path.is_file():
        raise ConfigurationError(f"GGUF model file not found: {path}")
    try:
        import llama_cpp  # noqa: F401 - fail here, not at the first call
        from langchain_community.chat_models import ChatLlamaCpp  # noqa: F401 - the same: the extra is installed
    except ImportError:
        raise ConfigurationError("a local GGUF model needs the 'local' extra: pip install 'sparkit[local]'") from None
    threads = {"n_threads": n_threads} if n_threads else {}
    return _local_chat_class()(
        model_path=str(path), temperature=temperature, n_ctx=n_ctx, max_tokens=max_tokens, verbose=False, **threads
    )


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
