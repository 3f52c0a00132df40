"""arXiv API client: relevance search and id lookup over the Atom feed (stdlib xml.etree).

arXiv asks for one request every 3 s on a single connection and has no citation data, so this client is
paced by its HostPolicy and `neighbours` returns nothing. Record ids keep the version ('2104.12255v1', for
citation); `Record.arxiv_id` holds the versionless id used for dedupe.
"""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from agent.common.text import content_terms
from agent.errors import SourceError
from agent.interfaces import HopFilter
from agent.literature import Provenance, Record
from agent.tools.http import ApiClient, HostPolicy, HttpBase, HttpOptions
from agent.tools.http.parsing import collapse_ws, unique, year_of

log = logging.getLogger(__name__)

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
BASE_URL = "https://export.arxiv.org/api/"
# ToU: one request per 3 s, one connection; 429s need tens of seconds of backoff (apis.md §2).
POLICY = HostPolicy(
    min_interval_s=3.0, max_concurrency=1, max_connections=1, max_attempts=3, backoff_base_s=10.0, backoff_cap_s=60.0
)
MAX_PAGE = 2000

_FIELDED = re.compile(r"\b(ti|au|abs|co|jr|cat|rn|id|all):", re.I)
_OPERATOR = re.compile(r"\b(AND|OR|ANDNOT)\b")
_PHRASE = re.compile(r'"([^"]+)"')
_UNSAFE = re.compile(r"[^\w.\-]+")


def build_search_query(text: str, *, max_terms: int = 5) -> str:
    """arXiv query syntax from free text: quoted phrases and up to `max_terms` content words, ANDed as
    `all:` terms. Text that already uses field prefixes or Boolean operators is passed through."""
    text = text.strip()
    if _FIELDED.search(text) or _OPERATOR.search(text):
        return text
    phrases = [collapse_ws(_UNSAFE.sub(" ", p)) for p in _PHRASE.findall(text)]
    words = [_UNSAFE.sub("", t) for t in content_terms(_PHRASE.sub(" ", text))]
    terms = [f'all:"{p}"' for p in phrases if p] + [f"all:{w}" for w in words if w]
    return " AND ".join(terms[:max_terms]) or f"all:{_UNSAFE.sub(' ', text).strip()}"


@dataclass
class Feed:
    """One parsed Atom page."""

    total_results: int = 0
    start_index: int = 0
    records: list[Record] = field(default_factory=list)
    error: str | None = None


def _text(node: ET.Element, tag: str) -> str:
    child = node.find(tag)
    return collapse_ws(child.text) if child is not None and child.text else ""


def _int(node: ET.Element, tag: str) -> int:
    try:
        return int(_text(node, tag) or 0)
    except ValueError:
        return 0


def entry_to_record(entry: ET.Element, *, query: str | None = None) -> Record:
    """Map one Atom <entry> to a Record (fields per apis.md §4); `query` adds a 'search' provenance."""
    arxiv_id = _text(entry, ATOM + "id").split("/abs/")[-1]
    links = entry.findall(ATOM + "link")
    pdf = next(
        (
            link.get("href")
            for link in links
            if link.get("title") == "pdf"
            or link.get("type") == "application/pdf"
            or "/pdf/" in (link.get("href") or "")
        ),
        None,
    )
    abs_url = next((link.get("href") for link in links if "/abs/" in (link.get("href") or "")), None)
    authors = entry.findall(ATOM + "author")
    return Record(
        id=arxiv_id,
        source="arxiv",
        title=_text(entry, ATOM + "title"),
        abstract=_text(entry, ATOM + "summary"),
        year=year_of(_text(entry, ATOM + "published")),
        authors=unique(_text(a, ATOM + "name") for a in authors),
        institutions=unique(collapse_ws(aff.text) for a in authors for aff in a.findall(ARXIV + "affiliation")),
        venue=_text(entry, ARXIV + "journal_ref") or None,
        doi=_text(entry, ARXIV + "doi") or None,
        arxiv_id=arxiv_id,
        oa_pdf_url=pdf or f"https://arxiv.org/pdf/{arxiv_id}",
        url=abs_url or f"https://arxiv.org/abs/{arxiv_id}",
        source_type="preprint",
        provenance=[Provenance(query=query, source="arxiv")] if query is not None else [],
    )


def parse_feed(root: ET.Element, *, query: str | None = None) -> Feed:
    """Entries, counts and the API's error entry (malformed ids come back as an entry titled 'Error')."""
    feed = Feed(
        total_results=_int(root, OPENSEARCH + "totalResults"), start_index=_int(root, OPENSEARCH + "startIndex")
    )
    for entry in root.findall(ATOM + "entry"):
        if "/api/errors" in _text(entry, ATOM + "id"):
            feed.error = _text(entry, ATOM + "summary") or "error entry"
            continue
        feed.records.append(entry_to_record(entry, query=query))
    return feed


class ArxivClient(ApiClient):
    """LiteratureSource over export.arxiv.org (no citation graph)."""

    name = "arxiv"
    supports_citations = False

    def __init__(self, *, options: HttpOptions | None = None, base_url: str = BASE_URL, empty_page_retries: int = 2):
        self.http = HttpBase(self.name, base_url, policy=POLICY, options=options)
        self.empty_page_retries = empty_page_retries

    async def search(self, query: str, *, limit: int) -> list[Record]:
        params = {
            "search_query": build_search_query(query),
            "start": 0,
            "max_results": max(1, min(limit, MAX_PAGE)),
            "sortBy": "relevance",
            "sortOrder": "descending",
        }
        return (await self._feed(params, query))[:limit]

    async def neighbours(self, record: Record, *, limit: int, gate: HopFilter | None = None) -> list[Record]:
        """arXiv has no reference or citation data."""
        return []

    async def _feed(self, params: dict[str, object], query: str | None) -> list[Record]:
        # arXiv sometimes serves a transiently empty page; re-ask (bypassing the cache) before believing it.
        for attempt in range(self.empty_page_retries + 1):
            response = await self.http.request(
                "GET", "query", params=params, expect=(200, 400), parse="xml", use_cache=attempt == 0
            )
            feed = parse_feed(response.data, query=query)
            if feed.error or response.status == 400:
                raise SourceError(self.name, f"query rejected: {feed.error or 'HTTP 400'}")
            if feed.records or feed.total_results <= feed.start_index:
                return feed.records
            log.info("arxiv: empty page although totalResults=%d; retrying", feed.total_results)
        return []
