"""The local-model eval's report (evals/local_model.py): per role and call kind, how its calls' replies parsed (the
first time, after a retry, never) and how many ran into the deadline; the failure modes of the raw replies; seconds
per question; the answers against the offline default's on the same questions; and, on request, a fixture of the
recorded bad replies that tests/llm/test_local_replies.py replays."""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from agent.judges.llm import StanceBatch
from agent.llm.replies import parse_reply
from benchmarks.cli import print_table
from benchmarks.formats import read_jsonl
from evals.report import fallback_kind, print_json

OUTCOMES = ("first", "retry", "never", "deadline", "error")
MODES = ("malformed", "repaired", "partial", "empty", "overlong", "wrong_language", "timeout")
# Letters of scripts other than Latin (Cyrillic, Arabic, kana, CJK, Hangul): a reply in the wrong language.
_OTHER_SCRIPT = re.compile(r"[\u0400-\u04FF\u0600-\u06FF\u3040-\u30FF\u3400-\u9FFF\uAC00-\uD7AF]")


def call_outcome(attempts: list[dict[str, Any]], parse_retries: int) -> str:
    """One role call's fate from its attempts in order: parsed the first time, after a retry, never (every attempt
    unusable), the deadline (an attempt timed out, or no time was left for the next one) or an error."""
    for i, attempt in enumerate(attempts):
        if attempt["outcome"] == "parsed":
            return "first" if i == 0 else "retry"
    last = attempts[-1]["outcome"]
    if last == "timeout" or "TimeoutError" in last:  # cancelled at the deadline, or the model busy past it
        return "deadline"
    if last.startswith("error"):
        return "error"
    return "deadline" if len(attempts) < parse_retries + 1 else "never"


def calls_of(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every role call of the run: role, kind, attempts, outcome and seconds (a call's requests share a number)."""
    out = []
    for row in rows:
        grouped: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
        for record in row["calls"]:
            grouped[(record["role"], record["call"])].append(record)
        retries = row["settings"].get("parse_retries", 2)
        for (role, _), attempts in grouped.items():
            attempts.sort(key=lambda a: a["attempt"])
            out.append(
                {
                    "question": row["id"],
                    "role": role,
                    "kind": attempts[0]["kind"],
                    "attempts": len(attempts),
                    "outcome": call_outcome(attempts, retries),
                    "seconds": sum(a["seconds"] for a in attempts),
                }
            )
    return out


def failure_modes(record: dict[str, Any], max_tokens: int) -> list[str]:
    """The failure modes one raw reply shows (none for a clean reply that parsed)."""
    if record["outcome"] == "timeout":
        return ["timeout"]
    reply = record.get("reply")
    if reply is None:
        return []
    modes = []
    if not reply.strip():
        modes.append("empty")
    elif record["outcome"] != "parsed":
        modes.append("malformed")
    elif not strict_json(reply):
        modes.append("repaired")
    if record["outcome"] == "parsed" and record.get("pairs_asked"):  # a stance batch: did it judge every pair?
        batch = parse_reply(reply, StanceBatch)
        if len({j.pair for j in batch.judgements}) < record["pairs_asked"]:
            modes.append("partial")
    if record.get("reply_tokens", 0) >= max_tokens - 1:
        modes.append("overlong")
    if _OTHER_SCRIPT.search(reply):
        modes.append("wrong_language")
    return modes


def strict_json(reply: str) -> bool:
    """Whether a reply is one JSON value as it stands (a code fence around it allowed), before any repair: a reply
    cut short parses only once json-repair closes it."""
    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", reply.strip())
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


def role_table(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per role and call kind (and per role in all): calls, the share of each outcome, seconds a call."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        groups[f"{call['role']} / {call['kind']}"].append(call)
        groups[f"{call['role']} (all)"].append(call)
    rows = []
    for name in sorted(groups):
        members = groups[name]
        counts = Counter(c["outcome"] for c in members)
        rows.append(
            {
                "role": name,
                "calls": len(members),
                **{outcome: round(counts[outcome] / len(members), 3) for outcome in OUTCOMES},
                "seconds_per_call": round(statistics.mean(c["seconds"] for c in members), 1),
            }
        )
    return rows


def decision(kind: str, answer: dict[str, Any]) -> Any:
    """What a question's answer decides: a claim's verdict, the option chosen, an open answer's first cited record
    (the answer line's, else the answer's)."""
    if answer.get("status") == "RAISED":
        return "raised"
    if kind == "claim":
        return answer["verdict"] if answer["status"] in ("ANSWERED", "LEANING") else "abstain"
    if kind == "mcq":
        return answer["selected_option"]
    from evals.open_questions import headline_ids

    if answer["status"] not in ("ANSWERED", "LEANING"):
        return "abstain"
    ids = headline_ids(answer["answer"]) or answer.get("cited") or ["none"]  # a model's answer line cites no id
    return ids[0]


def correct(kind: str, gold: Any, answer: dict[str, Any]) -> bool:
    """Right against the gold answer: the claim's label (an abstention for one the corpus does not settle), the
    supported option, a gold abstract cited first."""
    made = decision(kind, answer)
    if kind == "claim" and gold == "NOT_ENOUGH_INFO":
        return made == "abstain"  # a claim the corpus does not settle: abstaining is the right answer
    return made in gold if kind == "open" else made == gold


def _share(values: Any, n: int) -> float:
    return round(sum(values) / n, 3) if n else 0.0


def comparison(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per question kind: questions, agreement of the local model's answer with the offline default's, each one's
    share right, and each one's seconds a question."""
    out = []
    for kind in ("claim", "mcq", "open"):
        members = [r for r in rows if r["kind"] == kind]
        if not members:
            continue
        out.append(
            {
                "kind": kind,
                "questions": len(members),
                "agrees_with_offline": _share(
                    (decision(kind, r["local"]) == decision(kind, r["offline"]) for r in members), len(members)
                ),
                "right_local": _share((correct(kind, r["gold"], r["local"]) for r in members), len(members)),
                "right_offline": _share((correct(kind, r["gold"], r["offline"]) for r in members), len(members)),
                "s_per_question_local": round(statistics.mean(r["local"]["seconds"] for r in members), 1),
                "s_per_question_offline": round(statistics.mean(r["offline"]["seconds"] for r in members), 1),
            }
        )
    return out


def bad_replies(rows: list[dict[str, Any]], per_mode: int = 2, cap: int = 3000) -> list[dict[str, Any]]:
    """Up to `per_mode` recorded replies of each failure mode (different call kinds first), each cut to `cap`
    characters with its length kept: the fixture the tests replay."""
    picked: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        max_tokens = row["settings"]["max_tokens"]
        for record in row["calls"]:
            for mode in failure_modes(record, max_tokens):
                have = picked[mode]
                if len(have) < per_mode and all(h["kind"] != record["kind"] for h in have):
                    reply = record.get("reply", "")
                    have.append(
                        {
                            "mode": mode,
                            "question": row["id"],
                            "role": record["role"],
                            "kind": record["kind"],
                            "attempt": record["attempt"],
                            "outcome": record["outcome"][:200],
                            "seconds": round(record["seconds"], 1),
                            "reply_chars": len(reply),
                            "reply_tokens": record.get("reply_tokens"),
                            "reply": reply[:cap],
                        }
                    )
    return [item for mode in MODES for item in picked.get(mode, [])]


def markdown(rows: list[dict[str, Any]]) -> str:
    """Rows of one shape as a Markdown table (the results page's form)."""
    if not rows:
        return "(none)"
    head = list(rows[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(str(row[key]) for key in head) + " |" for row in rows])


def report(path: Path, fixture: Path | None = None, as_json: bool = False) -> int:
    if not path.is_file():
        print(f"no replies at {path}: run python -m evals.local_model first")
        return 2
    rows = read_jsonl(path)
    calls = calls_of(rows)
    attempts = [(r, record) for r in rows for record in r["calls"]]
    modes = Counter(m for r, record in attempts for m in failure_modes(record, r["settings"]["max_tokens"]))
    fallbacks = Counter(fallback_kind(note) for r in rows for note in r["local"].get("fallbacks", []))
    counts = Counter(r["kind"] for r in rows)
    print(f"{len(rows)} questions: {dict(counts)}; {len(calls)} role calls, {len(attempts)} requests")
    print(f"\nPer role and call kind, the share of calls by outcome\n\n{markdown(role_table(calls))}")
    print(f"\nAgainst the offline default\n\n{markdown(comparison(rows))}")
    print_table("Failure modes (requests)", [(mode, modes[mode]) for mode in MODES])
    if fallbacks:
        print_table("Fallbacks recorded in usage (by role and failure)", sorted(fallbacks.items()))
    if fixture is not None:
        items = bad_replies(rows)
        fixture.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items), encoding="utf-8")
        print(f"wrote {len(items)} recorded bad replies to {fixture}")
    if as_json:
        print_json(
            {
                "questions": dict(counts),
                "roles": role_table(calls),
                "comparison": comparison(rows),
                "failure_modes": dict(modes),
                "fallbacks": dict(fallbacks),
            }
        )
    return 0
