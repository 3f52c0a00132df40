"""A GGUF model as a LangChain chat model straight over llama-cpp-python, for evals that measure a prompt.

The agent's own local path (agent/llm/local.py) goes through langchain-community's ChatLlamaCpp and the local
model guard; an eval that scores one prompt against another needs only the completion, so it does without the
langchain-community extra (a large install for one class). Greedy decoding, the model's own chat template, its
prompt prefix reused between calls by llama.cpp (the system prompt is evaluated once), and generations through the
agent's LocalModelGuard (one at a time, stopped at the role's deadline).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

from agent.llm.local import local_guard

ROLES = {"system": "system", "human": "user", "ai": "assistant"}


class LlamaChat(BaseChatModel):
    """One loaded llama_cpp.Llama behind the chat-model interface RoleModel calls (text in, text out)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    client: Any
    max_tokens: int = 512

    @classmethod
    def load(cls, path: Path, threads: int = 1, n_ctx: int = 4096, max_tokens: int = 512) -> LlamaChat:
        import llama_cpp

        if not path.expanduser().is_file():
            raise FileNotFoundError(f"no GGUF model at {path}")
        client = llama_cpp.Llama(
            model_path=str(path.expanduser()), n_ctx=n_ctx, n_threads=threads, n_batch=256, verbose=False, seed=0
        )
        return cls(client=client, max_tokens=max_tokens)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp-eval"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        import llama_cpp

        chat = [{"role": ROLES.get(m.type, "user"), "content": str(m.content)} for m in messages]

        def generate(processors: list) -> Any:
            extra = {"logits_processor": llama_cpp.LogitsProcessorList(processors)} if processors else {}
            return self.client.create_chat_completion(
                messages=chat, temperature=0.0, max_tokens=self.max_tokens, stop=stop, **extra
            )

        # the agent's guard: one generation at a time on the model (a call past its deadline leaves its thread
        # running, and a second generation on the same llama.cpp context crashes it), ended at the deadline
        reply = local_guard(self.client).run(generate, self.client.token_eos())
        usage = reply.get("usage") or {}
        message = AIMessage(
            content=reply["choices"][0]["message"].get("content") or "",
            usage_metadata={
                "input_tokens": int(usage.get("prompt_tokens", 0)),
                "output_tokens": int(usage.get("completion_tokens", 0)),
                "total_tokens": int(usage.get("total_tokens", 0)),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
