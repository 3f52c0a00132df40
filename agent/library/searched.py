"""Whether a run's settings search the library, its index when they do, and how an answer names it."""

from __future__ import annotations

import os

from agent.errors import CorpusError
from agent.library.store import Library, LibraryIndex
from agent.settings.sources import CorpusSettings


def library_for(settings: CorpusSettings) -> Library:
    return Library(settings.library_dir or None)


def _library_wanted(settings: CorpusSettings) -> bool:
    """Whether these settings search the library: 'on', the library alone (use_corpus false), or 'auto' with no
    explicitly named corpus."""
    if settings.use_library == "off":
        return False
    return (
        settings.use_library == "on"
        or not settings.use_corpus
        or not (settings.corpus_path or os.environ.get("SPARKIT_CORPUS"))
    )


def library_stamp(settings: CorpusSettings) -> str:
    """Part of the backend cache key: a backend built before the library changed is not reused."""
    return library_for(settings).stamp() if _library_wanted(settings) else ""


def library_index(settings: CorpusSettings) -> LibraryIndex | None:
    """The library's index when these settings search it; None when they do not. use_library='on', or the library
    alone (use_corpus false), with an empty or missing library is a CorpusError; so is the library alone with
    use_library='off'."""
    if not settings.use_corpus and settings.use_library == "off":
        raise CorpusError("use_corpus is false (--library-only) but use_library is 'off': nothing would be searched")
    if not _library_wanted(settings):
        return None
    library = library_for(settings)
    if not library.exists():
        if settings.use_library == "on" or not settings.use_corpus:
            why = (
                "use_library is 'on'"
                if settings.use_library == "on"
                else "the library alone is searched (use_corpus false, --library-only)"
            )
            raise CorpusError(
                f"{why} but the library at {library.root} is empty: add papers with `sparkit library add PATH`"
            )
        return None
    return library.index()


def library_label(settings: CorpusSettings) -> str:
    """The library as an answer's `searched` names it: 'your library (3 PDFs, 12 abstracts)'."""
    docs = library_for(settings).documents()
    full = sum(1 for d in docs if d.full_text)
    parts = [f"{full:,} PDF{'s' if full != 1 else ''}"] if full else []
    if len(docs) - full:
        parts.append(f"{len(docs) - full:,} abstract{'s' if len(docs) - full != 1 else ''}")
    return f"your library ({', '.join(parts) or 'empty'})"
