"""Input validation shared by the CLI, the Python API and the graph's first node."""

from __future__ import annotations

from typing import Any, Literal, get_args

from agent.errors import InputError
from agent.terminal import strip_controls

MAX_QUESTION_CHARS = 20_000
Mode = Literal["ask", "verify"]
"""'ask' answers the question; 'verify' treats it as a claim to check (SUPPORT / CONTRADICT / NOT_ENOUGH_INFO)."""


def validate_mode(mode: Any) -> Mode:
    """The run's mode ('ask' when not given), or InputError naming the accepted ones."""
    if mode is None:
        return "ask"
    if mode not in get_args(Mode):
        raise InputError(f"unknown mode {str(mode)[:40]!r}; use one of: {', '.join(get_args(Mode))}")
    return mode


def clean_text(text: str, what: str) -> str:
    """`text` as one line of plain text: InputError when it is not valid Unicode (undecodable bytes from a terminal
    arrive as lone surrogates), escape sequences and control characters removed, whitespace collapsed."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"the {what} is not valid UTF-8 text") from None
    return " ".join(strip_controls(text).split())


def validate_question(question: Any, options: Any = None) -> tuple[str, list[str]]:
    """Clean question and options, or InputError with a one-line reason."""
    if question is not None and not isinstance(question, str):
        raise InputError(f"the question must be text, not {type(question).__name__}")
    question = clean_text(question or "", "question")
    if not question:
        raise InputError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise InputError(f"the question has {len(question)} characters; the limit is {MAX_QUESTION_CHARS}")
    if isinstance(options, (str, bytes)) or (options is not None and not isinstance(options, (list, tuple))):
        raise InputError(f"options must be a list of strings, not {type(options).__name__}")
    options = list(options or [])
    if options:
        if not all(isinstance(o, str) for o in options):
            raise InputError("options must be strings")
        options = [clean_text(o, "option") for o in options]
        if any(not o for o in options):
            raise InputError("an option is empty")
        if len(options) < 2:
            raise InputError("a multiple-choice question needs at least 2 options")
        if len({o.lower() for o in options}) != len(options):
            raise InputError("options must be distinct")
        if len(options) > 26:
            raise InputError("at most 26 options")
    return question, options
