"""Brave Search web client: the fallback when every academic source misses a query.

The free plan allows 1 request/s (parallel agent queries get 429 at once), so requests are serialised
one second apart, `X-RateLimit-Remaining`/`Reset` can push the next one back, and a 429 is retried once.
Web results become Records with `source_type="web"` and highlighting markup stripped from snippets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent.interfaces import HopFilter
from agent.literature import Provenance, Record
from agent.tools.http import ApiClient, HostPolicy, HttpBase, HttpOptions, Pacer, require_secret
from agent.tools.http.parsing import collapse_ws, dig, items_of, strip_markup, unique, year_of

BASE_URL = "https://api.search.brave.com/res/v1/"
KEY_ENV = "BRAVE_API_KEY"
POLICY = HostPolicy(min_interval_s=1.0, max_concurrency=1, max_attempts=2, backoff_base_s=1.0, backoff_cap_s=5.0)
COUNT_MAX = 20


def follow_rate_limit(headers: Mapping[str, str], pacer: Pacer, policy: HostPolicy) -> None:
    """When the per-second window is used up ('X-RateLimit-Remaining: 0, …'), wait its reset."""
    remaining = (headers.get("x-ratelimit-remaining") or "").split(",")[0].strip()
    reset = (headers.get("x-ratelimit-reset") or "").split(",")[0].strip()
    if remaining == "0" and reset.replace(".", "", 1).isdigit():
        pacer.defer(float(reset))


def result_to_record(result: Any, *, query: str) -> Record | None:
    """A web result as a Record (id = URL)."""
    if not isinstance(result, dict) or not result.get("url"):
        return None
    snippets = [result.get("description"), *(result.get("extra_snippets") or [])]
    return Record(
        id=result["url"],
        source="brave",
        title=strip_markup(result.get("title")),
        abstract=collapse_ws(" ".join(unique(strip_markup(s) for s in snippets))),
        year=year_of(result.get("page_age")),
        venue=dig(result, "profile", "name") or dig(result, "meta_url", "hostname"),
        url=result["url"],
        source_type="web",
        provenance=[Provenance(query=query, source="brave")],
    )


def error_message(body: Any) -> str | None:
    """Brave's error body: {"type": "ErrorResponse", "error": {"detail", "code", ...}} -> its detail (or code)."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    inner = error.get("detail") or error.get("message") or error.get("code")
    return inner if isinstance(inner, str) else None


class BraveSearchClient(ApiClient):
    """LiteratureSource over Brave web search (no citation graph)."""

    name = "brave"
    supports_citations = False

    def __init__(self, *, api_key: str | None = None, options: HttpOptions | None = None, base_url: str = BASE_URL):
        key = require_secret(api_key, KEY_ENV, "Brave web search")
        self.http = HttpBase(
            self.name,
            base_url,
            policy=POLICY,
            options=options,
            headers={"X-Subscription-Token": key.get_secret_value(), "Accept": "application/json"},
            secrets=[key],
            adapt=follow_rate_limit,
            read_error=error_message,
            rate_limit_hint="Brave free plan allows 1 request/s",
        )

    async def search(self, query: str, *, limit: int) -> list[Record]:
        params = {"q": collapse_ws(query)[:400], "count": max(1, min(limit, COUNT_MAX)), "text_decorations": "false"}
        data = await self.http.get_json("web/search", params=params, not_found_ok=False)
        records = [result_to_record(r, query=query) for r in items_of(self.name, data, "web", "results")]
        return [r for r in records if r is not None][:limit]

    async def neighbours(self, record: Record, *, limit: int, gate: HopFilter | None = None) -> list[Record]:
        """Web pages have no citation graph."""
        return []
