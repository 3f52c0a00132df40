"""Small parsing helpers shared by the live clients, so each client's mapping code stays a field table.

Every API returns text with its own markup (JATS in Crossref abstracts, <strong> in Brave snippets,
stray newlines in arXiv titles), dates in its own shape and ids in URL form; these functions turn those
into the plain values `agent.records.Record` holds.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import Any

from agent.errors import SourceError

_HEADING = re.compile(r"<(jats:)?title\b[^>]*>.*?</(jats:)?title>", re.I | re.S)
_BLOCK_TAG = re.compile(r"</?(?:jats:)?(?:p|br|div|li|list-item|sec|h\d)\b[^>]*>", re.I)
_TAG = re.compile(r"<[^>]+>")
_WS = re.compile(r"\s+")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)
_OPENALEX_ID = re.compile(r"([WASIPCFT]\d+)$", re.I)


def collapse_ws(text: str | None) -> str:
    """Single spaces, no leading/trailing whitespace (arXiv titles and summaries carry newlines)."""
    return _WS.sub(" ", text or "").strip()


def strip_markup(text: str | None) -> str:
    """Plain text from JATS/HTML: drops section headings such as <jats:title>Abstract</jats:title>, turns
    block tags into spaces and removes inline ones (<strong>, <jats:italic>) without splitting words."""
    if not text:
        return ""
    text = _HEADING.sub(" ", text)
    text = _BLOCK_TAG.sub(" ", text)
    text = _TAG.sub("", text)
    return collapse_ws(html.unescape(text))


def year_of(value: Any) -> int | None:
    """Year from an int or an ISO-like date string; None when absent or implausible."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        year = value
    else:
        match = re.match(r"\s*(\d{4})", str(value))
        if not match:
            return None
        year = int(match.group(1))
    return year if 1000 <= year <= 2100 else None


def first_str(values: Any) -> str:
    """First non-empty string of a list (Crossref's title and container-title are lists)."""
    if isinstance(values, str):
        return collapse_ws(values)
    if isinstance(values, Sequence):
        for value in values:
            if isinstance(value, str) and value.strip():
                return collapse_ws(value)
    return ""


def unique(values: Iterable[str | None]) -> list[str]:
    """Order-preserving de-duplication that drops empty values."""
    return list(dict.fromkeys(v.strip() for v in values if isinstance(v, str) and v.strip()))


def arxiv_id_from_doi(doi: str | None) -> str | None:
    """'10.48550/arXiv.2304.05376' (arXiv's own DOI) -> '2304.05376'."""
    if not doi:
        return None
    match = _ARXIV_DOI.match(re.sub(r"^https?://(dx\.)?doi\.org/", "", doi.strip(), flags=re.I))
    return match.group(1) if match else None


def short_openalex_id(value: str | None) -> str | None:
    """'https://openalex.org/W2741809807' -> 'W2741809807' (upper-case letter prefix)."""
    if not value:
        return None
    match = _OPENALEX_ID.search(value.strip())
    return match.group(1).upper() if match else None


def non_empty_url(value: Any) -> str | None:
    """A URL string, or None for null/empty (S2's openAccessPdf can be {url: ""})."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def dig(obj: Any, *path: str | int) -> Any:
    """obj[p0][p1]... with None for any missing key, index or null along the way."""
    for key in path:
        if obj is None:
            return None
        if isinstance(key, int):
            if not isinstance(obj, list) or not -len(obj) <= key < len(obj):
                return None
            obj = obj[key]
        else:
            obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def aligned_scores(n: int, ranked: Iterable[tuple[int, float]]) -> list[float]:
    """Scores in input order from (index, score) pairs sorted by score (Cohere and Voyage rerank).

    Documents the service left out (top_n smaller than the input) score 0.0.
    """
    scores = [0.0] * n
    for index, score in ranked:
        if 0 <= index < n:
            scores[index] = float(score)
    return scores


def items_of(source: str, data: Any, *path: str | int) -> list[Any]:
    """The list at `path` inside a JSON body: [] when absent or null, SourceError when the body is not the
    expected object (an API answering 200 with an error document, for instance)."""
    if not isinstance(data, dict):
        raise SourceError(source, f"unexpected response shape ({type(data).__name__} instead of an object)")
    value = dig(data, *path)
    if value is None:
        return []
    if not isinstance(value, list):
        raise SourceError(source, f"unexpected response shape ({'/'.join(map(str, path))} is not a list)")
    return value
