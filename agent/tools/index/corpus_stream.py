"""A corpus read one record at a time, for builds too large to hold in memory (the Qdrant index).

Formats, by file name:
- `*.jsonl` (optionally `.gz`): one record per line, the conventions of the embedded index (SciFact, BEIR, generic;
  `agent.tools.index.local_index`);
- `*.xml.gz` / `*.xml`: PubMed baseline or update files as NLM distributes them (a `PubmedArticleSet` of
  `PubmedArticle`s), parsed incrementally with defusedxml (no entity expansion, no external entities);
- a folder: every such file in it, in name order (the PubMed baseline is ~1,200 `pubmed25nXXXX.xml.gz` files).

A PubMed article without an abstract is skipped (there is nothing to cite); a structured abstract keeps its section
labels ("BACKGROUND: ...") as PubMed shows them, one sentence list entry per section.
"""

from __future__ import annotations

import gzip
import io
import re
from collections.abc import Iterator
from pathlib import Path
from xml.etree.ElementTree import Element

from agent.common.jsonl import parse_jsonl
from agent.errors import CorpusError
from agent.literature import Record

_XML_SUFFIXES = (".xml.gz", ".xml")
_JSONL_SUFFIXES = (".jsonl.gz", ".jsonl")
_ARTICLE_OPEN = re.compile(rb"<PubmedArticle[\s>]")


def _kind(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(_XML_SUFFIXES):
        return "pubmed"
    if name.endswith(_JSONL_SUFFIXES):
        return "jsonl"
    raise CorpusError(f"{path.name}: not a corpus file (give .jsonl, PubMed .xml.gz, or a folder of them)")


def corpus_files(path: Path) -> list[Path]:
    """The files a corpus path stands for: itself, or a folder's corpus files in name order."""
    if not path.exists():
        raise CorpusError(f"corpus not found: {path}")
    if path.is_dir():
        files = sorted(
            p for p in path.iterdir() if p.is_file() and p.name.lower().endswith(_XML_SUFFIXES + _JSONL_SUFFIXES)
        )
        if not files:
            raise CorpusError(f"corpus folder {path} holds no .jsonl or PubMed .xml.gz files")
        return files
    _kind(path)
    return [path]


def _open(path: Path) -> io.BufferedIOBase:
    return gzip.GzipFile(path, "rb") if path.name.lower().endswith(".gz") else path.open("rb")


def count_records(path: Path) -> int:
    """How many records the corpus holds, for the progress line's total: JSONL lines, or PubMed articles (one
    decompressing pass, about a second per baseline file); articles without an abstract are counted too."""
    total = 0
    for file in corpus_files(path):
        try:
            with _open(file) as handle:
                if _kind(file) == "jsonl":
                    total += sum(1 for line in handle if line.strip())
                else:  # NLM's files put each <PubmedArticle> on a line of its own; a one-line file is counted too
                    total += sum(len(_ARTICLE_OPEN.findall(line)) for line in handle if b"<PubmedArticle" in line)
        except (OSError, EOFError) as exc:
            raise CorpusError(f"corpus {file} cannot be read: {exc}") from None
    return total


def iter_records(path: Path) -> Iterator[Record]:
    """Every record of the corpus, streamed; a malformed line or file raises CorpusError naming it."""
    for file in corpus_files(path):
        yield from (_jsonl_records(file) if _kind(file) == "jsonl" else _pubmed_records(file))


def _jsonl_records(path: Path) -> Iterator[Record]:
    from agent.tools.index.corpus_records import record_from_json

    try:
        gz = path.name.lower().endswith(".gz")
        with gzip.open(path, "rt", encoding="utf-8") if gz else path.open(encoding="utf-8") as handle:
            for line_no, obj in parse_jsonl(
                handle, lambda n, msg: CorpusError(f"{path.name} line {n} is not valid JSON: {msg}")
            ):
                yield record_from_json(obj, line_no)
    except UnicodeDecodeError as exc:
        raise CorpusError(f"corpus {path} is not UTF-8 text (byte {exc.start})") from None
    except (OSError, EOFError) as exc:
        raise CorpusError(f"corpus {path} cannot be read: {exc}") from None


def _pubmed_records(path: Path) -> Iterator[Record]:
    from defusedxml.common import DefusedXmlException
    from defusedxml.ElementTree import ParseError, iterparse

    try:
        with _open(path) as handle:
            for _, element in iterparse(handle, events=("end",)):
                if element.tag == "PubmedArticle":
                    record = pubmed_record(element)
                    element.clear()  # keeps memory flat over a 30,000-article file
                    if record is not None:
                        yield record
    except (ParseError, DefusedXmlException) as exc:
        raise CorpusError(f"{path.name} is not PubMed XML ({exc})") from None
    except (OSError, EOFError) as exc:
        raise CorpusError(f"corpus {path} cannot be read: {exc}") from None


def _text(element: Element | None) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def pubmed_record(article: Element) -> Record | None:
    """One `PubmedArticle` as a Record (id = PMID), or None when it has no abstract."""
    citation = article.find("MedlineCitation")
    if citation is None or not _text(citation.find("PMID")):
        return None
    sections = []
    for part in citation.findall("Article/Abstract/AbstractText"):
        text = _text(part)
        if text:
            label = (part.get("Label") or "").strip()
            sections.append(f"{label}: {text}" if label and label.upper() != "UNLABELLED" else text)
    if not sections:
        return None
    year = (
        _text(citation.find("Article/Journal/JournalIssue/PubDate/Year"))
        or _text(citation.find("Article/Journal/JournalIssue/PubDate/MedlineDate"))[:4]
    )
    authors = [
        " ".join(p for p in (_text(a.find("ForeName")), _text(a.find("LastName"))) if p)
        or _text(a.find("CollectiveName"))
        for a in citation.findall("Article/AuthorList/Author")
    ]
    doi = next(
        (_text(i) for i in article.findall("PubmedData/ArticleIdList/ArticleId") if i.get("IdType") == "doi"), ""
    )
    references = [
        _text(i)
        for i in article.findall("PubmedData/ReferenceList/Reference/ArticleIdList/ArticleId")
        if i.get("IdType") == "pubmed" and _text(i)
    ]
    return Record(
        id=_text(citation.find("PMID")),
        source="local",
        source_type="local",
        title=_text(citation.find("Article/ArticleTitle")),
        abstract=" ".join(sections),
        sentences=sections if len(sections) > 1 else [],
        year=int(year) if year.isdigit() else None,
        doi=doi or None,
        authors=[a for a in authors if a],
        references=references,
        venue=_text(citation.find("Article/Journal/Title")) or None,
    )
