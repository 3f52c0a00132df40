"""Input validation shared by the CLI, the Python API and the graph's first node."""

from __future__ import annotations

from typing import Any

from agent.errors import InputError

MAX_QUESTION_CHARS = 20_000


def validate_question(question: Any, options: Any = None) -> tuple[str, list[str]]:
    """Clean question and options, or InputError with a one-line reason."""
    if not isinstance(question, str) or not question.strip():
        raise InputError("the question is empty")
    question = " ".join(question.split())
    if len(question) > MAX_QUESTION_CHARS:
        raise InputError(f"the question has {len(question)} characters; the limit is {MAX_QUESTION_CHARS}")
    options = list(options or [])
    if options:
        if not all(isinstance(o, str) for o in options):
            raise InputError("options must be strings")
        options = [" ".join(o.split()) for o in options]
        if any(not o for o in options):
            raise InputError("an option is empty")
        if len(options) < 2:
            raise InputError("a multiple-choice question needs at least 2 options")
        if len({o.lower() for o in options}) != len(options):
            raise InputError("options must be distinct")
        if len(options) > 26:
            raise InputError("at most 26 options")
    return question, options
