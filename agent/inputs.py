"""Input validation shared by the CLI, the Python API and the graph's first node."""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from agent.common.terminal import strip_controls
from agent.english.language import require_english
from agent.errors import InputError

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


# Option markers written inside a question: "(A) x (B) y", "[a] x [b] y", "A) x B) y", "A. x B. y", "A: x B: y";
# each style with upper- and lower-case letters, and the letter its list starts from.
_MARKERS = tuple(
    (re.compile(rf"(?:(?<=\s)|^){style.format(L=f'[{first}-{last}]')}(?=\s)"), first)
    for style in (r"\(({L})\)", r"\[({L})\]", r"({L})\)", r"({L})\.", r"({L}):")
    for first, last in (("A", "Z"), ("a", "z"))
)
_WH_STEM = re.compile(r"^(?:which|what|who|whom|whose|where|when|how|why)\b", re.IGNORECASE)
_OPTION_TAIL = re.compile(r"(?:[\s,;]+(?:or|and)?)+$|\s+(?:or|and)$", re.IGNORECASE)


def inline_options(question: str) -> tuple[str, list[str]] | None:
    """'Which is more effective: (A) varenicline or (B) nicotine patch?' -> ('Which is more effective?',
    ['varenicline', 'nicotine patch']): options written into the question, lettered from A (or a) in order and in one
    style, at least two, after a stem. None when the question has no such list. Without this the question is read
    as open and answered with whatever sentence the literature offers, not as a choice between the two."""
    best: list[re.Match[str]] = []
    for marker, first in _MARKERS:
        run: list[re.Match[str]] = []
        for match in marker.finditer(question):
            if match.group(1) == chr(ord(first) + len(run)):
                run.append(match)
            elif match.group(1) == first:  # a new list starts: keep the longer
                run = [match] if len(run) < 2 else run
        if len(run) > len(best):
            best = run
    if len(best) < 2:
        return None
    stem = question[: best[0].start()].strip()
    if not re.search(r"\w", stem) or not (stem[-1] in "?:.,;–-" or _WH_STEM.match(stem)):
        return None  # "the IL-6 (A) and (B) subunits": letters inside a sentence, not a list after a stem
    ends = [m.start() for m in best[1:]] + [len(question)]
    options = [_OPTION_TAIL.sub("", question[m.end() : end].strip()).strip() for m, end in zip(best, ends)]
    options[-1] = options[-1].rstrip("?.!").strip()
    if any(not option for option in options):
        return None
    stem = stem.rstrip(":;,-– ").strip()
    if question.rstrip().endswith("?") and not stem.endswith("?"):
        stem = stem.rstrip(".") + "?"
    return stem, options


def validate_question(question: Any, options: Any = None, mode: Mode = "ask") -> tuple[str, list[str]]:
    """Clean question and options, or InputError with a one-line reason (LanguageError for a question not in
    English). Options written into a question to be
    answered ("(A) x (B) y") are taken out of it when none are given separately; a claim to verify is left whole."""
    if question is not None and not isinstance(question, str):
        raise InputError(f"the question must be text, not {type(question).__name__}")
    question = clean_text(question or "", "question")
    if not question:
        raise InputError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise InputError(f"the question has {len(question)} characters; the limit is {MAX_QUESTION_CHARS}")
    require_english(question)  # LanguageError: the grammar, judge and checks read English only
    if isinstance(options, (str, bytes)) or (options is not None and not isinstance(options, (list, tuple))):
        raise InputError(f"options must be a list of strings, not {type(options).__name__}")
    options = list(options or [])
    if not options and mode == "ask" and (inline := inline_options(question)) is not None:
        question, options = inline
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
