"""Checks on what a chat model returns before any of it reaches the run: queries, hypotheses, answer lines.

A weak model returns fragments ("1.2"), placeholders ("none"), ids ("H1") or leaked chat turns
("');\\nWinner: H2Hiring\\nuser"); each check refuses such text so the caller can record it and fall back.
"""

from __future__ import annotations

import re

from agent.common.text import content_terms

_JUNK = {"", "none", "n/a", "na", "null", "nil", "unknown", "-", "...", "not applicable", "no", "nothing", "tbd"}
_ROLE_LEAK = re.compile(
    r"(^|\n)\s*(user|assistant|system|human|ai)\s*[:\n]|winner\s*:|<\|?/?\w*\|?>|\b(?:court ranking|ledger)\s*:", re.I
)
_ID_ONLY = re.compile(r"^\s*(\(?[A-H]\)?|H\d+|E\d+|option\s+[A-H])\s*[.:]?\s*$", re.I)


def is_junk(text: str) -> bool:
    return text.strip().strip(".").lower() in _JUNK


def usable_query(text: str) -> bool:
    """A search query: some words with letters, not a placeholder, not a leaked prompt."""
    text = text.strip()
    return (
        3 <= len(text) <= 300
        and not is_junk(text)
        and bool(re.search(r"[A-Za-z]{3}", text))
        and not _ROLE_LEAK.search(text)
    )


def usable_number(text: str) -> bool:
    return bool(re.search(r"\d", text)) and len(text) <= 40


def usable_entity(text: str) -> bool:
    return 2 <= len(text.strip()) <= 80 and not is_junk(text) and bool(re.search(r"[A-Za-z]", text))


def usable_hypothesis(text: str) -> bool:
    """A candidate answer: a declarative statement of a few words with two content terms ("1.2", "H1" or "none"
    are not), on one line, without leaked chat turns."""
    text = text.strip()
    words = re.findall(r"[A-Za-z][A-Za-z\-']+", text)
    return (
        15 <= len(text) <= 400
        and "\n" not in text
        and len(words) >= 3
        and len(content_terms(text)) >= 2
        and not _ROLE_LEAK.search(text)
        and not _ID_ONLY.match(text)
    )


def usable_answer_line(text: str, *about: str) -> bool:
    """A one-line answer a person can read: one line, a few words, no ids or leaked turns, and on the subject (it shares
    a content term with the question or the chosen hypothesis)."""
    text = text.strip()
    if not usable_hypothesis(text) or re.search(r"[<>{}]", text):
        return False
    subject = {t for other in about for t in content_terms(other)}
    return not subject or bool(subject & set(content_terms(text)))
