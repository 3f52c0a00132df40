"""OpenAlex client: works search, singletons by W-id or DOI, references in OR-batches, citing works.

Since 2026-02 OpenAlex prices usage per call and needs OPENALEX_API_KEY (sent as `api_key`, which the
base redacts everywhere); singletons are free and `search=` costs ten times a filter, so referenced works
are resolved in batches (`filter=openalex_id:W1|W2…`) rather than one by one. 403 means the per-second
limit (retried); 429 means the daily budget is spent (not retried: it will not recover in seconds).
Abstracts are rebuilt from `abstract_inverted_index` using every position of every word.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from agent.interfaces import HopFilter
from agent.literature import Provenance, Record, normalize_doi
from agent.tools.http import ApiClient, HostPolicy, HttpBase, HttpOptions, env_secret
from agent.tools.http.parsing import (
    arxiv_id_from_doi,
    collapse_ws,
    dig,
    items_of,
    non_empty_url,
    short_openalex_id,
    unique,
    year_of,
)
from agent.tools.sources.citations import select_neighbours

BASE_URL = "https://api.openalex.org/"
KEY_ENV = "OPENALEX_API_KEY"
POLICY = HostPolicy(
    min_interval_s=0.1, max_concurrency=4, max_attempts=4, retry_statuses=frozenset({403, 502, 503, 504})
)
SELECT = (
    "id,doi,title,display_name,publication_year,publication_date,ids,authorships,primary_location,"
    "best_oa_location,open_access,cited_by_count,referenced_works,abstract_inverted_index"
)
PER_PAGE_MAX = 100
OR_BATCH = 50


def rebuild_abstract(inverted: Any) -> str:
    """Text from an inverted index {word: [positions]}, emitting each word at EVERY position."""
    if not isinstance(inverted, dict):
        return ""
    placed = [
        (pos, word)
        for word, positions in inverted.items()
        if isinstance(positions, list)
        for pos in positions
        if isinstance(pos, int)
    ]
    return collapse_ws(" ".join(word for _, word in sorted(placed, key=lambda item: item[0])))


def work_to_record(work: Any, *, query: str | None = None) -> Record | None:
    """Map an OpenAlex Work to a Record; `query` (search results) adds a 'search' provenance."""
    if not isinstance(work, dict):
        return None
    wid = short_openalex_id(work.get("id"))
    if not wid:
        return None
    doi = normalize_doi(work.get("doi") or dig(work, "ids", "doi"))
    inverted = work.get("abstract_inverted_index") or work.get("abstract_inverted_index_v3")
    pmid = re.search(r"(\d+)/?$", dig(work, "ids", "pmid") or "")
    authorships = [a for a in work.get("authorships") or [] if isinstance(a, dict)]
    return Record(
        id=wid,
        source="openalex",
        openalex_id=wid,
        title=collapse_ws(work.get("title") or work.get("display_name")),
        abstract=rebuild_abstract(inverted),
        year=year_of(work.get("publication_year")) or year_of(work.get("publication_date")),
        authors=unique(dig(a, "author", "display_name") for a in authorships),
        institutions=unique(
            i.get("display_name") for a in authorships for i in a.get("institutions") or [] if isinstance(i, dict)
        ),
        venue=collapse_ws(dig(work, "primary_location", "source", "display_name")) or None,
        doi=doi,
        arxiv_id=arxiv_id_from_doi(doi),
        pmid=pmid.group(1) if pmid else None,
        citation_count=work.get("cited_by_count"),
        oa_pdf_url=non_empty_url(dig(work, "best_oa_location", "pdf_url"))
        or non_empty_url(dig(work, "open_access", "oa_url")),
        url=non_empty_url(dig(work, "primary_location", "landing_page_url"))
        or (f"https://doi.org/{doi}" if doi else None),
        references=unique(short_openalex_id(w) for w in work.get("referenced_works") or []),
        source_type="index",
        provenance=[Provenance(query=query, source="openalex")] if query is not None else [],
    )


def _work_path(identifier: str) -> str:
    wid = (
        short_openalex_id(identifier)
        if re.fullmatch(r"(https://openalex\.org/)?W\d+", identifier.strip(), re.I)
        else None
    )
    return f"works/{wid}" if wid else f"works/doi:{normalize_doi(identifier)}"


class OpenAlexClient(ApiClient):
    """LiteratureSource over api.openalex.org (references and citing works)."""

    name = "openalex"
    supports_citations = True

    def __init__(
        self,
        *,
        api_key: str | None = None,
        options: HttpOptions | None = None,
        max_refs_resolved: int = 100,
        base_url: str = BASE_URL,
    ):
        key = env_secret(api_key, KEY_ENV)
        options = options or HttpOptions()
        self.http = HttpBase(
            self.name,
            base_url,
            policy=POLICY,
            options=options,
            params={"api_key": key.get_secret_value() if key else None, "mailto": options.mailto},
            secrets=[key],
            rate_limit_hint="daily budget spent" + ("" if key else f"; set {KEY_ENV} for a larger budget"),
        )
        self.max_refs_resolved = max_refs_resolved

    async def search(self, query: str, *, limit: int) -> list[Record]:
        params = {"search": collapse_ws(query), "per_page": max(1, min(limit, PER_PAGE_MAX)), "select": SELECT}
        data = await self.http.get_json("works", params=params, not_found_ok=False)
        return self._records(items_of(self.name, data, "results"), query)[:limit]

    async def work(self, identifier: str) -> Record | None:
        """A single work by W-id (or openalex URL) or DOI (free); None when unknown (404 may be HTML)."""
        data = await self.http.get_json(_work_path(identifier))
        return work_to_record(data) if data is not None else None

    async def works_by_ids(self, work_ids: list[str]) -> list[Record]:
        """Resolve W-ids in OR-batches of 50 (`filter=openalex_id:W1|W2…`)."""
        ids = unique(short_openalex_id(w) for w in work_ids)
        batches = [ids[i : i + OR_BATCH] for i in range(0, len(ids), OR_BATCH)]
        pages = await asyncio.gather(
            *(self._list({"filter": "openalex_id:" + "|".join(b), "per_page": len(b)}) for b in batches)
        )
        return [record for page in pages for record in page]

    async def citing(self, work_id: str, *, limit: int) -> list[Record]:
        """Works citing `work_id` (`filter=cites:W…`), most cited first."""
        wid = short_openalex_id(work_id)
        if not wid:
            return []
        params = {"filter": f"cites:{wid}", "per_page": max(1, min(limit, PER_PAGE_MAX)), "sort": "cited_by_count:desc"}
        return await self._list(params)

    async def neighbours(self, record: Record, *, limit: int, gate: HopFilter | None = None) -> list[Record]:
        """Referenced works (most cited first) and citing works, through the hop filter."""
        if limit <= 0:
            return []
        wid = record.openalex_id or short_openalex_id(record.alt_ids.get("openalex"))
        refs = record.references if record.source == "openalex" and wid else None
        if refs is None:
            if not wid and not record.doi:
                return []
            seed = await self.work(wid or record.doi or "")
            if seed is None:
                return []
            wid, refs = seed.openalex_id, seed.references
        if not wid:
            return []
        referenced, citing = await asyncio.gather(
            self.works_by_ids(refs[: self.max_refs_resolved]), self.citing(wid, limit=max(limit * 4, 25))
        )
        referenced.sort(key=lambda r: r.citation_count or 0, reverse=True)
        return select_neighbours(record, [referenced, citing], limit=limit, gate=gate)

    async def _list(self, params: dict[str, Any]) -> list[Record]:
        data = await self.http.get_json("works", params={**params, "select": SELECT}, not_found_ok=False)
        return self._records(items_of(self.name, data, "results"), None)

    @staticmethod
    def _records(works: list[Any], query: str | None) -> list[Record]:
        return [r for r in (work_to_record(w, query=query) for w in works) if r is not None]
