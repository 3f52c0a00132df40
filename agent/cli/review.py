"""`sparkit ask --review` (the court's ledger reviewed at the terminal) and `sparkit corrections export`.

At the review point the ledger is printed on stderr (stdout keeps the answer, or its one JSON object with --json),
each passage numbered with its record and reading, and edits are read one per line from stdin until an empty line,
`done` or the end of input (so a script can pipe them in):

    strike p2 [p5 ...]   the passage does not bear on the statement (or is not evidence): it stops counting
    read p3 against      the reviewer's reading: support, against or unrelated
    add 27768226         a record the run retrieved, read by the court's judges as its other records are

A line that does not parse, or names a passage or record the ledger has not, is refused in one line and the prompt
goes on; the edits are checked against the ledger again when the run resumes (agent/review/ledger.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO, Any

from agent.common.terminal import terminal_safe
from agent.review.ledger import READINGS, Edits, ReviewError, ReviewPassage, parse_edits

HELP = "strike P [P ...] | read P support|against|unrelated | add RECORD_ID | done (or an empty line)"


def show_ledger(payload: dict[str, Any], out: IO[str]) -> None:
    print(f"\nReview of the court's ledger: {terminal_safe(payload.get('question', ''), 300)}", file=out)
    for h in payload.get("hypotheses", []):
        print(f"  {h['id']}  {h['verdict']:<13} {h['score']:>7}  {terminal_safe(h['text'], 160)}", file=out)
    for p in payload.get("passages", []):
        mark = " (decided the verdict)" if p.get("decided") else ""
        print(
            f"  {p['id']:>4}  [{terminal_safe(p['record_id'], 40)}] read {p['reading']} ({p['confidence']}){mark}: "
            f"{terminal_safe(p['text'], 300)}",
            file=out,
        )
    if payload.get("addable"):
        shown = ", ".join(terminal_safe(a["record_id"], 40) for a in payload["addable"][:10])
        print(f"  retrieved, not in the ledger (add RECORD_ID): {shown}", file=out)
    if payload.get("error"):
        print(f"  the last review did not fit: {terminal_safe(payload['error'], 300)}", file=out)
    print(f"edits, one per line ({HELP}):", file=out, flush=True)


def parse_line(line: str, edits: dict[str, Any]) -> bool:
    """Add one line's edit to `edits`; False when the line ends the review. ReviewError when it does not parse."""
    words = line.split()
    if not words or [w.lower() for w in words] == ["done"]:
        return False  # "done" with more words is refused below: it is not the line that ends the review
    verb, rest = words[0].lower(), words[1:]
    if verb == "strike" and rest:
        edits.setdefault("strike", []).extend(rest)
    elif verb == "read" and len(rest) == 2 and rest[1].lower() in READINGS:
        edits.setdefault("read", {})[rest[0]] = rest[1].lower()
    elif verb == "add" and len(rest) == 1:
        edits.setdefault("add", []).append(rest[0])
    else:
        raise ReviewError(f"cannot read {line.strip()[:80]!r}: {HELP}")
    return True


def terminal_reviewer(stdin: IO[str] | None = None, out: IO[str] | None = None) -> Any:
    """A reviewer (agent.api.Reviewer) that shows the ledger and reads the edits from the terminal (module
    docstring); each line is checked against the ledger as it is typed."""

    def review(payload: dict[str, Any]) -> dict[str, Any]:
        source, sink = stdin or sys.stdin, out or sys.stderr
        show_ledger(payload, sink)
        passages = [
            ReviewPassage(p["id"], p["statement"], p["record_id"], None, None, p["text"], "NEUTRAL", 0.0, False)
            for p in payload.get("passages", [])
        ]
        addable = {a["record_id"]: None for a in payload.get("addable", [])}
        edits: dict[str, Any] = {}
        for line in source:
            trial = {k: (dict(v) if isinstance(v, dict) else list(v)) for k, v in edits.items()}
            try:
                if not parse_line(line, trial):
                    break
                parse_edits(trial, passages, addable)  # type: ignore[arg-type]  # ids are what is checked
            except ReviewError as exc:
                print(f"  refused: {terminal_safe(str(exc), 300)}", file=sink, flush=True)
                continue
            edits = trial
        print(f"  review: {_summary(edits)}", file=sink, flush=True)
        return edits

    return review


def _summary(edits: dict[str, Any]) -> str:
    parsed = Edits(edits.get("strike", []), edits.get("read", {}), edits.get("add", []))
    if parsed.empty:
        return "the ledger approved as it is"
    return f"{len(parsed.strike)} struck, {len(parsed.read)} re-read, {len(parsed.add)} added"


def _cmd_export(args: argparse.Namespace) -> int:
    from agent.review.corrections import corrections_path, export

    out = Path(args.out) if args.out else None
    written = export(out)
    where = f" to {out}" if out else ""
    print(f"{written} training pair(s) from {corrections_path()}{where}", file=sys.stderr)
    return 0


def add_corrections_command(sub: argparse._SubParsersAction) -> None:
    corrections_p = sub.add_parser("corrections", help="reviewers' corrections of the court's readings")
    corrections_sub = corrections_p.add_subparsers(dest="corrections_command", required=True)
    export_p = corrections_sub.add_parser(
        "export", help="write them as the judge's training pairs (JSONL: statement, passage, label)"
    )
    export_p.add_argument("--out", help="the JSONL file to write (default: stdout)")
    export_p.set_defaults(handler=_cmd_export)
