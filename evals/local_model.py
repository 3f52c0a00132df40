r"""Every LLM role through a real local model: a GGUF chat model by llama.cpp (`llamacpp:`) as the fast, strong and
second role, on SciFact training claims, two-option questions and open questions, beside the offline default.

    python -m evals.local_model --model ~/.cache/sparkit-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \
        --claims ../shared/data/scifact/claims_train.jsonl --corpus ../shared/data/scifact/corpus.jsonl
    python -m evals.local_model --report [--fixture tests/fixtures/local_model_replies.jsonl]

Questions, training parts only: the first claims of claims_train's `train` part (30), two-option questions from that
part's contrast pairs (10, evals/scifact_mcq.py) and the open questions of the `tune` split (5,
evals/open_questions.py), interleaved so that any prefix of the run is stratified. Per question the offline default
(preset fast, no chat model) answers, then the same settings with the local model in every role (fast: planning,
stance batches, claim extraction; strong: adjudication and synthesis; second: a second set of hypotheses), every
call under the role's deadline. Every raw reply is kept (role, call kind, attempt, prompt size, text, whether it
parsed, seconds, a timeout): evals/local_model_report.py reads them.

A 1.5B model on 2 CPU cores takes minutes a question, so the run resumes: one JSON line per finished question in
--out (default ~/.cache/sparkit-local-eval/, outside the repository); a rerun skips the questions already there. An
eval, not a test: CI replays the bad replies it recorded (tests/llm/test_local_replies.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agent.judges.llm import StanceBatch
from agent.llm.local import call_deadline
from agent.llm.replies import parsed_or_reason
from agent.reasoners.chat import AdjudicationOut, AnswerOut, ClaimsOut, HypothesesOut, PlanOut, QueriesOut
from benchmarks.cli import commit
from benchmarks.formats import read_jsonl
from benchmarks.questions import contrast_pairs, gold_of, load_claims, question_of

ROLES = ("fast", "strong", "second")
# The schema each call kind asks for: the eval tells a request's kind by the schema its JSON note spells out.
KINDS: dict[str, type[BaseModel]] = {
    "plan": PlanOut,
    "hypothesize": HypothesesOut,
    "discriminate": QueriesOut,
    "stance": StanceBatch,
    "adjudicate": AdjudicationOut,
    "synthesize": AnswerOut,
    "extract_claims": ClaimsOut,
}
DEFAULT_OUT = Path("~/.cache/sparkit-local-eval").expanduser()
REPLIES = "replies.jsonl"


@dataclass(frozen=True)
class Item:
    """One question of the set: its kind (claim, mcq, open), text, options and gold answer."""

    id: str
    kind: str
    text: str
    options: list[str]
    gold: Any


def question_set(claims_path: Path, n_claims: int, n_mcq: int, n_open: int) -> list[Item]:
    """The claims, MCQs and open questions, interleaved by their share of the set (a prefix is stratified)."""
    from evals.open_questions import load_questions
    from evals.scifact_mcq import QUESTION

    train = load_claims(claims_path, "train")
    claims = [Item(f"claim-{c['id']}", "claim", c["claim"], [], gold_of(c)[2]) for c in train[:n_claims]]
    mcqs = []
    for i, (supported, contradicted) in enumerate(contrast_pairs(train)[:n_mcq]):
        options, gold = question_of(i, supported, contradicted)
        mcqs.append(Item(f"mcq-{supported['id']}-{contradicted['id']}", "mcq", QUESTION, options, gold))
    opens = [Item(q["id"], "open", q["question"], [], q["gold"]) for q in load_questions("tune", claims_path)[:n_open]]
    keyed = [  # one of each kind first, then each kind at its share of the set
        (0.0 if rank == 0 else (rank + 0.5) / len(group), order, item)
        for order, group in enumerate((claims, mcqs, opens))
        for rank, item in enumerate(group)
    ]
    return [item for _, _, item in sorted(keyed, key=lambda k: (k[0], k[1]))]


# ---------------------------------------------------------------------------------------------- the recorded model
def call_kind(messages: list[Any]) -> str:
    """Which role call a request is, by the schema spelt out in its last message (the JSON note every attempt ends
    with)."""
    last = str(messages[-1][1]) if messages else ""
    return next((kind for kind, schema in KINDS.items() if json.dumps(schema.model_json_schema()) in last), "other")


class RecordingChat:
    """The loaded local model as one role sees it: every request goes to the model unchanged, and its raw reply,
    seconds and fate (parsed, why not, a timeout, an error) are appended to `calls`. A RoleModel call's attempts share
    its deadline (agent.llm.local.call_deadline), which numbers the call; no structured-output method, so the role
    asks for JSON in the prompt as it does with any `llamacpp:` model."""

    def __init__(self, model: Any, role: str, calls: list[dict[str, Any]], count_tokens: Any = None):
        self.model = model
        self.role = role
        self.calls = calls
        self.count_tokens = count_tokens or (lambda text: len(text) // 4)
        self._numbers: dict[float | None, int] = {}

    def with_structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a local GGUF model gets its JSON asked for in the prompt")

    async def ainvoke(self, messages: list[Any]) -> Any:
        kind = call_kind(messages)
        call = self._numbers.setdefault(call_deadline.get(), len(self._numbers))
        record: dict[str, Any] = {
            "role": self.role,
            "kind": kind,
            "call": call,
            "attempt": sum(1 for c in self.calls if c["role"] == self.role and c["call"] == call),
            "prompt_chars": sum(len(str(text)) for _, text in messages),
            "prompt_tokens": self.count_tokens(" ".join(str(text) for _, text in messages)),
        }
        if kind == "stance":  # how many pairs the batch asks about (a reply may judge fewer)
            record["pairs_asked"] = len(re.findall(r"(?m)^Pair \d+$", str(messages[1][1])))
        started = time.monotonic()
        try:
            message = await self.model.ainvoke(messages)
        except asyncio.CancelledError:  # the role's deadline: asyncio.wait_for cancelled the attempt
            self._keep({**record, "outcome": "timeout", "seconds": time.monotonic() - started})
            raise
        except Exception as exc:
            outcome = f"error: {type(exc).__name__}: {exc}"[:200]
            self._keep({**record, "outcome": outcome, "seconds": time.monotonic() - started})
            raise
        text = str(getattr(message, "content", "") or "")
        parsed = parsed_or_reason(text, KINDS[kind]) if kind in KINDS else "unknown schema"
        self._keep(
            {
                **record,
                "outcome": parsed if isinstance(parsed, str) else "parsed",
                "seconds": time.monotonic() - started,
                "reply": text,
                "reply_tokens": self.count_tokens(text),
            }
        )
        return message

    def _keep(self, record: dict[str, Any]) -> None:
        """The record, and a line of progress (a question takes minutes)."""
        self.calls.append(record)
        print(
            f"  {record['role']} {record['kind']} #{record['call']}.{record['attempt']}: {record['outcome'][:80]} "
            f"({record['prompt_tokens']} tokens in, {record['seconds']:.0f} s)",
            flush=True,
        )


def register_roles(model_path: Path, args: argparse.Namespace, calls: list[dict[str, Any]]) -> dict[str, str]:
    """The local model loaded once and registered under one spec per role (so each call says its role); the specs."""
    from agent.llm.local import local_gguf
    from agent.llm.providers import register_chat_model

    model = local_gguf(str(model_path), 0.0, args.n_ctx, args.max_tokens, args.threads)
    client = model.client

    def count_tokens(text: str) -> int:
        return len(client.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    specs = {role: f"llamacpp:{model_path.name}#{role}" for role in ROLES}
    for role, spec in specs.items():
        register_chat_model(spec, RecordingChat(model, role, calls, count_tokens))
    return specs


# ---------------------------------------------------------------------------------------------- the run
async def ask(item: Item, context: Any) -> Any:
    """One question through the public API, as the claim, MCQ and open-question evals ask it."""
    from agent import aask, averify

    if item.kind == "claim":
        return await averify(item.text, context=context)
    return await aask(item.text, options=item.options or None, context=context)


def summary(answer: Any, seconds: float) -> dict[str, Any]:
    """What the comparison and the report read of an answer."""
    return {
        "status": answer.status.value,
        "verdict": answer.verdict,
        "selected_option": answer.selected_option,
        "answer": answer.answer[:400],
        "cited": [c.id for c in answer.citations][:8],
        "confidence": round(answer.confidence, 3),
        "stop_reason": answer.stop_reason[:300],
        "fallbacks": answer.usage.fallbacks,
        "llm_calls": answer.usage.llm_calls,
        "seconds": round(seconds, 2),
    }


async def timed(item: Item, context: Any) -> dict[str, Any]:
    started = time.monotonic()
    try:
        answer = await ask(item, context)
    except Exception as exc:  # recorded, and the run goes on to the next question
        return {
            "status": "RAISED",
            "error": f"{type(exc).__name__}: {exc}"[:300],
            "seconds": time.monotonic() - started,
        }
    return summary(answer, time.monotonic() - started)


def contexts(args: argparse.Namespace, specs: dict[str, str]) -> tuple[Any, Any]:
    """The offline default's settings (the results page's wall time: the fast preset's 60 s cuts runs short on a
    loaded machine), and the same with the local model in every role and the calls a slow model needs (the preset's
    12 would send the roles offline after a few retries)."""
    from agent.api import make_context

    base = {"preset": args.preset, "corpus_path": str(args.corpus.resolve()), "max_wall_time_s": args.wall_time}
    local = {
        "llm_fast": specs["fast"],
        "llm_strong": specs["strong"],
        "llm_second": specs["second"],
        "llm_deadline_s": args.deadline,
        "max_llm_calls": args.max_llm_calls,
        "llm_breaker_failures": args.breaker_failures,
        "llm_roles": {"strong": {"deadline_s": args.strong_deadline or args.deadline}},
    }
    return make_context(**base), make_context(**base, **local)


async def run(args: argparse.Namespace) -> int:
    out = args.out / REPLIES
    done = {row["id"] for row in read_jsonl(out)} if out.is_file() else set()
    items = [i for i in question_set(args.claims, args.n_claims, args.n_mcq, args.n_open) if i.id not in done]
    items = items[: args.limit] if args.limit is not None else items
    print(f"{len(done)} questions done, {len(items)} to run", flush=True)
    if not items:
        return 0
    calls: list[dict[str, Any]] = []
    specs = register_roles(args.model.expanduser(), args, calls)
    offline, local = contexts(args, specs)
    settings = {
        "model": args.model.name,
        "preset": args.preset,
        "deadline_s": args.deadline,
        "strong_deadline_s": args.strong_deadline or args.deadline,
        "wall_time_s": args.wall_time,
        "max_llm_calls": args.max_llm_calls,
        "n_ctx": args.n_ctx,
        "max_tokens": args.max_tokens,
        "threads": args.threads,
        "breaker_failures": args.breaker_failures,
        "parse_retries": local.models.llm_parse_retries,
        "commit": commit(),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    for item in items:
        calls.clear()
        row = {**asdict(item), "offline": await timed(item, offline)}
        row["local"] = await timed(item, local)
        row["calls"] = list(calls)
        row["settings"] = settings
        with out.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, default=str) + "\n")
        print(f"{item.id}: {row['local']['seconds']:.0f} s, {len(calls)} requests", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.local_model", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, help="the GGUF file (docs/local-model.md)")
    parser.add_argument("--claims", type=Path, help="SciFact claims_train.jsonl")
    parser.add_argument("--corpus", type=Path, help="SciFact corpus.jsonl")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"where {REPLIES} grows (default: %(default)s)")
    parser.add_argument("--n-claims", type=int, default=30)
    parser.add_argument("--n-mcq", type=int, default=10)
    parser.add_argument("--n-open", type=int, default=5)
    parser.add_argument("--limit", type=int, help="run at most N more questions")
    parser.add_argument("--preset", default="fast")
    parser.add_argument("--deadline", type=float, default=120.0, help="each role call's deadline, s (llm_deadline_s)")
    parser.add_argument("--wall-time", type=float, default=900.0, help="each question's wall-time budget, s")
    parser.add_argument("--max-llm-calls", type=int, default=40)
    parser.add_argument(
        "--breaker-failures",
        type=int,
        default=2,
        help="consecutive failures before a role's circuit opens for 5 minutes (the product's default, 2)",
    )
    parser.add_argument(
        "--strong-deadline",
        type=float,
        help="the strong role's deadline, s (default: --deadline); it reads longer prompts",
    )
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument(
        "--threads", type=int, default=1, help="llama.cpp threads (on busy cores 1 is twice as fast as 2)"
    )
    parser.add_argument("--report", action="store_true", help="summarise the replies file instead of running")
    parser.add_argument("--fixture", type=Path, help="with --report: write one recorded bad reply per failure mode")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.report:
        from evals.local_model_report import report

        return report(args.out / REPLIES, args.fixture, args.json)
    missing = [name for name in ("model", "claims", "corpus") if getattr(args, name) is None]
    if missing:
        parser.error(f"a run needs --{' --'.join(missing)}")
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
