"""Crossref REST client: bibliographic search, works by DOI (JATS abstracts stripped) and reference lists.

Crossref announces its limits on every response (`x-rate-limit-limit` / `x-rate-limit-interval`,
`x-concurrency-limit`); `follow_rate_headers` feeds them to the pacer, starting from the strict public
pool (5/s, one at a time). A contact email (SPARKIT_MAILTO) goes in the User-Agent and a `mailto`
parameter for the polite pool. Crossref has no "cited by" in its public API, so `neighbours` walks
references only: those with a DOI are fetched in one filter call per 20; DOI-less ones are matched by
title (or by their unstructured citation text) only while it is cheap: a small budget of lookups, none
for references the hop filter would drop anyway, and a hit is kept only when its title really matches.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from agent.errors import SourceError
from agent.interfaces import HopFilter
from agent.literature import Provenance, Record, normalize_doi, normalize_title
from agent.tools.http import ApiClient, HostPolicy, HttpBase, HttpOptions, Pacer, env_secret
from agent.tools.http.parsing import (
    arxiv_id_from_doi,
    collapse_ws,
    dig,
    first_str,
    items_of,
    strip_markup,
    unique,
    year_of,
)
from agent.tools.sources.citations import filter_hop_records, select_neighbours

BASE_URL = "https://api.crossref.org/"
PLUS_TOKEN_ENV = "CROSSREF_PLUS_TOKEN"
POLICY = HostPolicy(min_interval_s=0.2, max_concurrency=1, max_attempts=4, backoff_base_s=1.0)
MAX_CONCURRENCY = 8
SELECT = "DOI,title,subtitle,author,container-title,issued,published,abstract,is-referenced-by-count,link,URL,type"
ROWS_MAX = 1000
DOI_FILTER_BATCH = 20
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$", re.I)
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def _seconds(value: str | None) -> float | None:
    match = _DURATION.match(value or "")
    return float(match.group(1)) * _UNIT_S[(match.group(2) or "s").lower()] if match else None


def follow_rate_headers(headers: Mapping[str, str], pacer: Pacer, policy: HostPolicy) -> None:
    """Pace by Crossref's announced limits: spacing = interval / limit, concurrency = x-concurrency-limit."""
    try:
        limit = int(headers.get("x-rate-limit-limit", "") or 0)
    except ValueError:
        limit = 0
    interval = _seconds(headers.get("x-rate-limit-interval"))
    if limit > 0 and interval:
        pacer.update(min_interval_s=interval / limit)
    try:
        concurrency = int(headers.get("x-concurrency-limit", "") or 0)
    except ValueError:
        concurrency = 0
    if concurrency > 0:
        pacer.update(max_concurrency=min(concurrency, MAX_CONCURRENCY))


def _year(item: dict[str, Any]) -> int | None:
    for key in ("issued", "published", "published-print", "published-online"):
        year = year_of(dig(item, key, "date-parts", 0, 0))
        if year:
            return year
    return None


def _reference_year(reference: dict[str, Any]) -> int | None:
    """A reference's deposited year, else the last plausible year in its unstructured text."""
    years = re.findall(r"\b(?:19|20)\d{2}\b", reference.get("unstructured") or "")
    return year_of(reference.get("year")) or (year_of(years[-1]) if years else None)


def _author_name(author: dict[str, Any]) -> str:
    return " ".join(p for p in (author.get("given"), author.get("family")) if p) or author.get("name") or ""


def item_to_record(item: Any, *, query: str | None = None) -> Record | None:
    """Map a Crossref work item to a Record; `query` (search results) adds a 'search' provenance."""
    if not isinstance(item, dict) or not item.get("DOI"):
        return None
    doi = normalize_doi(item["DOI"]) or ""
    authors = [a for a in item.get("author") or [] if isinstance(a, dict)]
    pdf = next(
        (
            link.get("URL")
            for link in item.get("link") or []
            if isinstance(link, dict) and link.get("content-type") == "application/pdf"
        ),
        None,
    )
    return Record(
        id=doi,
        source="crossref",
        doi=doi,
        title=first_str(item.get("title")),
        abstract=strip_markup(item.get("abstract")),
        year=_year(item),
        authors=unique(_author_name(a) for a in authors),
        institutions=unique(
            aff.get("name") for a in authors for aff in a.get("affiliation") or [] if isinstance(aff, dict)
        ),
        venue=first_str(item.get("container-title")) or None,
        arxiv_id=arxiv_id_from_doi(doi),
        citation_count=item.get("is-referenced-by-count"),
        oa_pdf_url=pdf,
        url=item.get("URL") or f"https://doi.org/{doi}",
        references=unique(normalize_doi(r.get("DOI")) for r in item.get("reference") or [] if isinstance(r, dict)),
        source_type="publisher",
        provenance=[Provenance(query=query, source="crossref")] if query is not None else [],
    )


def error_message(body: Any) -> str | None:
    """Crossref's error body: {"status": "failed", "message": [{"type", "value", "message"}]} -> the first message."""
    inner = dig(body, "message", 0, "message") if isinstance(body, dict) else None
    return inner if isinstance(inner, str) else None


class CrossrefClient(ApiClient):
    """LiteratureSource over api.crossref.org (references only; no cited-by in the public API)."""

    name = "crossref"
    supports_citations = True

    def __init__(
        self,
        *,
        options: HttpOptions | None = None,
        plus_token: str | None = None,
        max_refs_resolved: int = 100,
        title_match_budget: int = 3,
        base_url: str = BASE_URL,
    ):
        options = options or HttpOptions()
        token = env_secret(plus_token, PLUS_TOKEN_ENV)
        self.http = HttpBase(
            self.name,
            base_url,
            policy=POLICY,
            options=options,
            params={"mailto": options.mailto},
            headers={"Crossref-Plus-API-Token": f"Bearer {token.get_secret_value()}"} if token else None,
            secrets=[token],
            adapt=follow_rate_headers,
            read_error=error_message,
        )
        self.max_refs_resolved = max_refs_resolved
        self.title_match_budget = title_match_budget

    async def search(self, query: str, *, limit: int) -> list[Record]:
        records, _ = await self.search_page(query, rows=limit, cursor=None)
        return records[:limit]

    async def search_page(self, query: str, *, rows: int, cursor: str | None = "*") -> tuple[list[Record], str | None]:
        """One page of `query` results; with a cursor ('*' to start), also the next cursor for deep paging."""
        params = {"query": query, "rows": max(1, min(rows, ROWS_MAX)), "select": SELECT, "cursor": cursor}
        data = await self.http.get_json("works", params=params, not_found_ok=False)
        items = items_of(self.name, data, "message", "items")
        next_cursor = dig(data, "message", "next-cursor") if cursor else None
        return self._records(items, query), next_cursor if items else None

    async def work(self, doi: str) -> Record | None:
        """The work for a DOI, with its reference DOIs in `references`; None when Crossref has no record."""
        return item_to_record(await self._work_item(doi))

    async def works_by_dois(self, dois: list[str]) -> list[Record]:
        """Works for many DOIs, one `filter=doi:A,doi:B…` call per 20 (Crossref ORs repeated filters)."""
        wanted = unique(normalize_doi(d) for d in dois)
        records: list[Record] = []
        for start in range(0, len(wanted), DOI_FILTER_BATCH):
            batch = wanted[start : start + DOI_FILTER_BATCH]
            params = {"filter": ",".join(f"doi:{d}" for d in batch), "rows": len(batch), "select": SELECT}
            data = await self.http.get_json("works", params=params, not_found_ok=False)
            records.extend(self._records(items_of(self.name, data, "message", "items"), None))
        return records

    async def match_title(
        self, title: str, *, author: str | None = None, year: str | int | None = None
    ) -> Record | None:
        """The work whose title matches `title` exactly (after normalisation), via one bibliographic query."""
        wanted = normalize_title(title)
        if len(wanted) < 12:
            return None
        hint = " ".join(str(x) for x in (title, author, year) if x)
        return next((r for r in await self._bibliographic(hint) if normalize_title(r.title) == wanted), None)

    async def match_reference(self, reference: dict[str, Any]) -> Record | None:
        """Resolve a DOI-less reference: by its `article-title` when deposited, else by its `unstructured`
        text, accepting the best hit only when its whole title appears in that text."""
        if reference.get("article-title"):
            return await self.match_title(
                reference["article-title"], author=reference.get("author"), year=reference.get("year")
            )
        text = collapse_ws(reference.get("unstructured"))
        haystack = normalize_title(text)
        if len(haystack) < 20:
            return None
        for record in await self._bibliographic(text):
            key = normalize_title(record.title)
            if len(key) >= 12 and f" {key} " in f" {haystack} ":
                return record
        return None

    async def _bibliographic(self, text: str) -> list[Record]:
        params = {"query.bibliographic": text, "rows": 1, "select": SELECT}
        data = await self.http.get_json("works", params=params, not_found_ok=False)
        return self._records(items_of(self.name, data, "message", "items"), None)

    async def neighbours(self, record: Record, *, limit: int, gate: HopFilter | None = None) -> list[Record]:
        """Referenced works (DOI batch first, then cheap title matches), most cited first, through the hop filter."""
        if not record.doi or limit <= 0:
            return []
        item = await self._work_item(record.doi)
        if item is None:
            return []
        refs = [r for r in item.get("reference") or [] if isinstance(r, dict)]
        found = await self.works_by_dois([r["DOI"] for r in refs if r.get("DOI")][: self.max_refs_resolved])
        passing = filter_hop_records(found, gate) if gate else found
        if len(passing) < limit:
            found += await self._match_doi_less(refs, limit - len(passing), gate)
        found.sort(key=lambda r: r.citation_count or 0, reverse=True)
        return select_neighbours(record, [found], limit=limit, gate=gate)

    async def _match_doi_less(self, refs: list[dict[str, Any]], wanted: int, gate: HopFilter | None) -> list[Record]:
        min_year = gate.min_year if gate else None

        def worth_a_lookup(ref: dict[str, Any]) -> bool:
            year = _reference_year(ref)
            too_old = min_year is not None and year is not None and year < min_year
            return not ref.get("DOI") and bool(ref.get("article-title") or ref.get("unstructured")) and not too_old

        matched: list[Record] = []
        for ref in [r for r in refs if worth_a_lookup(r)][: min(self.title_match_budget, wanted)]:
            hit = await self.match_reference(ref)
            if hit is not None:
                matched.append(hit)
        return matched

    async def _work_item(self, doi: str) -> dict[str, Any] | None:
        data = await self.http.get_json(f"works/{quote(normalize_doi(doi) or doi, safe='/')}")
        if data is None:
            return None
        message = data.get("message") if isinstance(data, dict) else None
        if not isinstance(message, dict):
            raise SourceError(self.name, "unexpected work response (no message object)")
        return message

    @staticmethod
    def _records(items: list[Any], query: str | None) -> list[Record]:
        return [r for r in (item_to_record(i, query=query) for i in items) if r is not None]
