"""`sparkit mcp`: SPARKIT as a Model Context Protocol server over stdio (the official `mcp` SDK's MCPServer).

Tools, with typed arguments and typed (structured) results:
- ask(question, options?, preset?, backend?)  -> Answer   the same object as `sparkit ask --json`
- verify(claim, preset?, backend?)            -> Answer   SUPPORT / CONTRADICT / NOT_ENOUGH_INFO with evidence
- search_library(query, limit?)               -> LibrarySearch   passages with document, page and section
- add_to_library(paths)                       -> AddReport       files and folders on this machine (no URLs)

stdout carries the protocol, so nothing else may print there; progress and logs go to stderr. Runs are
async (the graph's nodes load models and indexes in threads), and the library's blocking work (parsing,
encoding, search) runs in a worker thread, so the event loop keeps answering. A SPARKIT error reaches the
client as a tool error with its one-line message (redacted).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from agent.config import DEFAULT_PRESET, PresetName
from agent.library.models import AddReport
from agent.records import Answer

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

INSTRUCTIONS = (
    "SPARKIT answers scientific questions from literature with cited evidence. `ask` answers a question (add "
    "`options` for "
    "multiple choice), `verify` checks a claim, `search_library` finds passages in the user's library (their PDFs and "
    "bibliographies; citations carry page and section), `add_to_library` adds local "
    "PDF/BibTeX/RIS/JSON/JSONL files or folders."
)


class LibraryHit(BaseModel):
    id: str = Field(description="Record id: 'doc#p4.2' for passage 2 starting on page 4 of a full-text document.")
    document_id: str
    title: str
    year: int | None = None
    page: int | None = None
    page_end: int | None = None
    section: str | None = None
    text: str
    score: float


class LibrarySearch(BaseModel):
    query: str
    hits: list[LibraryHit]
    documents_in_library: int


def _tool_error(exc: Exception) -> Exception:
    from mcp.server.mcpserver.exceptions import ToolError

    from agent.common.redact import redact

    return ToolError(redact(str(exc)).splitlines()[0][:500] if str(exc) else type(exc).__name__)


def search_library(query: str, limit: int = 10, library_dir: str | None = None) -> LibrarySearch:
    """Hybrid (BM25 + MiniLM) search over the library's passages; blocking (run it in a thread)."""
    from agent.errors import InputError
    from agent.library.store import Library

    if not query.strip():
        raise InputError("empty query")
    library = Library(library_dir)
    hits = []
    for record, score in library.search(query, limit):
        where = record.location
        hits.append(
            LibraryHit(
                id=record.id,
                document_id=where.document_id if where else record.id,
                title=record.title,
                year=record.year,
                page=where.page if where else None,
                page_end=where.page_end if where else None,
                section=where.section if where else None,
                text=record.abstract,
                score=round(score, 6),
            )
        )
    return LibrarySearch(query=query, hits=hits, documents_in_library=len(library.documents()))


def build_server(library_dir: str | None = None) -> MCPServer:
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        from agent.errors import ConfigurationError

        raise ConfigurationError("sparkit mcp needs the MCP SDK: pip install 'sparkit[mcp]' (mcp>=2.3)") from None

    from agent.api import aask, averify
    from agent.errors import SparkitError

    server = MCPServer(name="sparkit", instructions=INSTRUCTIONS, version="0.1.0")
    overrides: dict[str, Any] = {"library_dir": library_dir} if library_dir else {}

    @server.tool(
        description="Answer a scientific question with cited evidence (open, yes/no, or multiple choice with "
        "`options`). "
        "Offline by default: the user's library when it has documents, else the local corpus."
    )
    async def ask(
        question: str = Field(description="The question (at most 20,000 characters)."),
        options: list[str] | None = Field(default=None, description="Multiple-choice options (2 or more, distinct)."),
        preset: PresetName = Field(default=DEFAULT_PRESET, description="fast, default or research_max."),
        backend: Literal["offline", "live"] = Field(
            default="offline", description="offline (local, no keys) or live (APIs)."
        ),
    ) -> Answer:
        try:
            return await aask(question, options or None, preset=preset, backend=backend, **overrides)
        except SparkitError as exc:
            raise _tool_error(exc) from None

    @server.tool(
        description="Check a claim against the literature: verdict SUPPORT / CONTRADICT / NOT_ENOUGH_INFO with "
        "the evidence."
    )
    async def verify(
        claim: str = Field(description="A declarative claim."),
        preset: PresetName = Field(default=DEFAULT_PRESET, description="fast, default or research_max."),
        backend: Literal["offline", "live"] = Field(default="offline", description="offline or live."),
    ) -> Answer:
        try:
            return await averify(claim, preset=preset, backend=backend, **overrides)
        except SparkitError as exc:
            raise _tool_error(exc) from None

    @server.tool(
        name="search_library",
        description="Find passages in the user's library (full-text passages carry page and section).",
    )
    async def search_library_tool(
        query: str = Field(description="What to look for."),
        limit: int = Field(default=10, ge=1, le=50, description="Passages to return."),
    ) -> LibrarySearch:
        try:
            return await asyncio.to_thread(search_library, query, limit, library_dir)
        except SparkitError as exc:
            raise _tool_error(exc) from None

    @server.tool(
        description="Add local files or folders to the library: PDFs, .bib, .ris, Better BibTeX/CSL .json, a "
        "Zotero data "
        "folder, JSONL corpora. Bad files are skipped with a reason; nothing in the "
        "library is lost."
    )
    async def add_to_library(
        paths: list[str] = Field(
            description="Absolute paths of files or folders on this machine (not URLs).", min_length=1
        ),
    ) -> AddReport:
        from agent.library.store import Library

        urls = [p for p in paths if "://" in p]
        if urls:
            raise _tool_error(ValueError(f"paths only, not URLs: {urls[0][:100]}"))
        try:
            return await asyncio.to_thread(Library(library_dir).add, paths)
        except SparkitError as exc:
            raise _tool_error(exc) from None

    return server


def serve(library_dir: str | None = None) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    from agent.common.redact import install_log_redaction

    install_log_redaction()
    build_server(library_dir).run("stdio")
