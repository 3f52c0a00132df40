"""`sparkit library fetch "query" --limit N`: records and abstracts from the live sources, into the library.

The live clients are used through the shared HTTP base (timeouts, retries honouring Retry-After, per-host
pacing, the SQLite response cache under $SPARKIT_HOME/http-cache), so a repeated fetch costs nothing and a
user with network builds an offline corpus for their field. Only the sources' own API hosts are contacted:
PDF links in the results are never downloaded (no URL taken from a response is fetched); an open-access link
a source reports is kept in the document's `oa_pdf_url` so the user can download the PDF and
`sparkit library add` it. Web search (Brave) is not used: its results are pages, not papers.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent.common.terminal import Progress
from agent.config import Context
from agent.library.items import Item
from agent.library.models import AddReport, LibraryDocument
from agent.library.store import Library
from agent.literature import Record
from agent.settings.sources import CorpusSettings


def interleave(per_source: list[list[Record]], limit: int) -> list[Record]:
    """Distinct works, taking each source's next best in turn; the same work from two sources is merged
    (DOI, arXiv id, title), keeping the richest abstract and every id."""
    works: dict[str, Record] = {}
    key_to_work: dict[str, str] = {}
    order: list[str] = []
    for rank in range(max((len(r) for r in per_source), default=0)):
        for records in per_source:
            if rank >= len(records):
                continue
            record = records[rank]
            known = next((key_to_work[k] for k in record.dedupe_keys() if k in key_to_work), None)
            if known is None:
                if len(order) >= limit:
                    continue
                known = record.dedupe_keys()[0]
                works[known] = record
                order.append(known)
            else:
                works[known] = works[known].merge(record)
            for key in record.dedupe_keys():
                key_to_work.setdefault(key, known)
    return [works[k] for k in order]


def as_item(record: Record) -> Item:
    document = LibraryDocument.from_record(
        record,
        id="",
        arxiv_id=record.arxiv_id,
        pmid=record.pmid,
        kind="fetch",
        source=record.source,
        oa_pdf_url=record.oa_pdf_url,
    )
    return Item(document=document)


async def fetch_records(
    query: str, *, limit: int, settings: Context, **tool_options: Any
) -> tuple[list[Record], list[str]]:
    """Up to `limit` distinct works for `query` from the configured academic sources, and the failures."""
    from agent.search import WebBudget, search_academic_then_web
    from agent.tools.live import build_live_tools

    tools = build_live_tools(settings.corpus, **tool_options)
    async with tools:
        per_source: list[list[Record]] = []
        failures: list[str] = []
        outcomes = await asyncio.gather(
            *(
                search_academic_then_web([s], None, query, limit=limit, web_budget=WebBudget(cap=0))
                for s in tools.sources
            )
        )
        for outcome in outcomes:
            per_source.append([r for r in outcome.records if r.title])
            failures += [str(f) for f in outcome.failures]
    return interleave(per_source, limit), failures


async def fetch_into_library(
    library: Library,
    query: str,
    *,
    limit: int = 20,
    sources: list[str] | None = None,
    progress: Progress | None = None,
    settings: Context | None = None,
    **tool_options: Any,
) -> AddReport:
    """Search, then add what is new to `library` (de-duplicated against it like any add)."""
    from agent.errors import InputError

    if not query.strip():
        raise InputError("fetch needs a query")
    if not 1 <= limit <= 200:
        raise InputError("--limit must be between 1 and 200")
    progress = progress or Progress(enabled=False)
    settings = settings or (Context(corpus=CorpusSettings(sources=sources)) if sources else Context())
    progress.line(f"fetch: asking {', '.join(settings.corpus.sources)} for {query!r}")
    records, failures = await fetch_records(query, limit=limit, settings=settings, **tool_options)
    report = await asyncio.to_thread(library.add_items, [as_item(r) for r in records], progress=progress)
    report.notes += [f"source failed: {f}" for f in failures]
    missing = sum(1 for r in records if not r.abstract)
    if missing:
        report.notes.append(f"{missing} of {len(records)} record(s) came without an abstract (title only)")
    with_pdf = sum(1 for r in records if r.oa_pdf_url)
    if with_pdf:
        report.notes.append(
            f"{with_pdf} record(s) list an open-access PDF (kept as oa_pdf_url, not downloaded: download it and "
            "`sparkit library add` it)"
        )
    return report
