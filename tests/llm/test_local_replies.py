"""The bad replies a real local model gave (Qwen2.5-Coder-1.5B-Instruct Q4_K_M through llama.cpp in every role,
recorded by `python -m evals.local_model` into tests/data/local_model_replies.jsonl), replayed through the live path
with a scripted model: each failure mode is handled as docs/live.md promises (a retry whose prompt names the error,
the offline role when the replies stay unusable or the deadline passes, and usage.fallbacks saying which and why).
No network, no GPU, no model file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent.judges.llm import LLMStanceJudge
from agent.metering import metered
from agent.reasoners.chat import ChatReasoner
from agent.reasoners.extractive import ExtractiveReasoner
from evals.local_model import KINDS
from tests.fakes import BagOfWordsEmbedder, RuleStance, SchemaChat, role_model

RECORDED = [
    json.loads(line)
    for line in (Path(__file__).resolve().parents[1] / "data" / "local_model_replies.jsonl").read_text().splitlines()
    if line.strip()
]
PAIRS = [
    ("Statins increase muscle pain", "Statins increases muscle pain in older adults."),
    ("Statins increase muscle pain", "Statins decreases muscle pain compared with placebo."),
]


def recorded(*modes: str) -> list[dict[str, Any]]:
    items = [r for r in RECORDED if r["mode"] in modes]
    assert items, f"the fixture holds no recorded {modes} reply"
    return items


def named(item: dict[str, Any]) -> str:
    return f"{item['mode']}-{item['role']}-{item['kind']}"


async def through_the_role(kind: str, model: SchemaChat, **options: Any) -> tuple[Any, list[str]]:
    """One call of `kind` as the run makes it (the chat reasoner's role call, or the stance judge's batches), with
    `model` as the local model: its result and the fallbacks recorded."""
    role = role_model(model, "llamacpp:qwen.gguf", structured_output="prompt", **options)
    with metered() as meter:
        if kind == "stance":
            result: Any = await LLMStanceJudge(role, RuleStance(), min_batch=2).judge(PAIRS)
        else:
            chat = ChatReasoner(role, role, ExtractiveReasoner(BagOfWordsEmbedder()))
            result = await chat._call(kind, role, "system", "Question: do statins cause muscle pain?", KINDS[kind])
    return result, meter.usage.fallbacks


class Silent(SchemaChat):
    """A local model still reading its prompt when the deadline comes (the recorded timeouts: a 1,744-token stance
    batch or a 1,253-token synthesis on 2 busy cores)."""

    async def _agenerate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.requests.append((self.bound, list(messages)))
        await asyncio.sleep(30)


@pytest.mark.parametrize("item", recorded("timeout"), ids=named)
async def test_a_call_past_its_deadline_goes_offline_and_the_fallback_says_why(item):
    kind = item["kind"]
    model = Silent(replies={})
    result, fallbacks = await through_the_role(kind, model, deadline_s=1.5)
    assert len(model.requests) == 1, "no retry is started once the deadline has passed"
    if kind == "stance":
        assert [r.stance for r in result] == ["SUPPORT", "CONTRADICT"] and not any(r.judged_by for r in result)
        assert len(fallbacks) == 1 and fallbacks[0].startswith(
            "stance: rule judged 2 of 2 pairs (ModelUnavailable: chat model llamacpp:qwen.gguf: no reply within the "
            "fast role's deadline"
        )
    else:
        assert result is None, "the caller runs the extractive role"
        assert len(fallbacks) == 1 and fallbacks[0].startswith(
            f"{kind}: extractive (ModelUnavailable: chat model llamacpp:qwen.gguf: no reply within the fast role's "
            "deadline"
        )


async def test_after_two_calls_past_the_deadline_the_model_is_not_asked_again():
    """The smoke run's claim: discrimination and the first stance batch timed out, and every later call of the fast
    role (four stance batches, claim extraction, and the next question's plan) ran offline at once, said so."""
    model = Silent(replies={})
    role = role_model(model, "llamacpp:qwen.gguf", structured_output="prompt", deadline_s=1.5)
    chat = ChatReasoner(role, role, ExtractiveReasoner(BagOfWordsEmbedder()))
    with metered() as meter:
        for kind in ("discriminate", "stance", "extract_claims"):
            await chat._call(kind, role, "system", "Question: do statins cause muscle pain?", KINDS[kind])
    assert len(model.requests) == 2
    assert "circuit open after repeated failures" in meter.usage.fallbacks[2]


@pytest.mark.parametrize("item", recorded("partial"), ids=named)
async def test_a_stance_reply_that_judges_only_some_pairs_leaves_the_rest_to_the_offline_judge(item):
    """The model judged the first 6 of a batch of 16 pairs and closed its JSON: its 6 count, the offline judge reads
    the other 10, and the fallback says how many."""
    asked = item["pairs_asked"]
    pairs = [(f"Statement {i} on prion prevalence", f"Passage {i}: prevalence increases.") for i in range(asked)]
    judge = LLMStanceJudge(
        role_model(SchemaChat(replies={"text": [item["reply"]]}), "llamacpp:qwen.gguf", structured_output="prompt"),
        RuleStance(),
    )
    with metered() as meter:
        results = await judge.judge(pairs)
    given = json.loads(item["reply"].strip().strip("`").removeprefix("json"))["judgements"]
    assert [(r.stance, r.judged_by) for r in results[: len(given)]] == [(g["stance"], "llm") for g in given]
    assert [(r.stance, r.judged_by) for r in results[len(given) :]] == [("SUPPORT", None)] * (asked - len(given))
    assert meter.usage.fallbacks == [
        f"stance: rule judged {asked - len(given)} of {asked} pairs (the reply left them unjudged)"
    ]
