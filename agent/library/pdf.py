"""PDF full text with pypdfium2 (PDFium, Apache-2.0/BSD; no models, no network): sections and paragraphs with pages.

Why PDFium: on the sample papers in evals/pdf_parsers.py it recovered as many sentences as pypdf at a third
of the time, and it reports each line as a rectangle, which is what column detection needs; it also marks
the hyphen a typesetter added at a line end (U+0002 / U+FFFE) so words split across lines are rejoined.

The layout pass, per page (lines, margins, columns and headings are agent.library.pdf_layout's):
1. text lines as rectangles; running heads and bare page numbers in the top and bottom margins dropped;
2. columns: a page with enough lines wholly left and wholly right of the middle is read band by band
   (full-width lines such as the title split the bands), left column before right;
3. lines join into paragraphs at vertical gaps, first-line indents and short closing lines; a paragraph that
   ends a column or page without closing punctuation continues on the next;
4. headings (numbered, or a known section name on a line of its own) start sections; the references
   section is split into entries instead of paragraphs;
5. ligature glyphs (fi, fl, ff, ffi, ffl) are spelled out and control characters removed; a hyphen at a line
   end is settled against the document's own words (`resolve_hyphens`): "meta-analysis" keeps its hyphen
   when the paper spells it so elsewhere, a word TeX broke ("METH-ODS", "signifi-cant") is joined.

A page without a text layer (a scan) yields a note, never an error; OCR is not attempted. Files that cannot
be read (not a PDF, encrypted, no pages, no text at all) raise `BadFileError` with a one-line reason.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path
from typing import Any

from agent.library.models import BadFileError, Paragraph, ParsedDocument
from agent.library.pdf_layout import Line, drop_margins, heading_of, page_lines, reading_order
from agent.library.pdf_text import clean_text, document_words, finish, hyphenating_producer, join_lines, resolve_hyphens

REFERENCE_HEADINGS = frozenset({"references", "bibliography", "literature cited", "works cited"})
_REF_START = re.compile(r"^\s*(?:\[\d{1,3}\]|\d{1,3}\.\s+(?=[A-Z])|\d{1,3}\s+(?=[A-Z][a-z]+,?\s))")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.I)
_ARXIV = re.compile(r"\barXiv:\s*(\d{4}\.\d{4,5})(v\d+)?", re.I)
_SENTENCE_END = (".", "!", "?", ":", ";")
_EMPTY_PAGE_TREE = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+0\b|/Count\s+0\b[^>]*?/Type\s*/Pages\b")
_PAGE_OBJECT = re.compile(rb"/Type\s*/Page\b(?!s)")
FRONT_MATTER_WORDS = (
    80  # text above the first heading of page 1 shorter than this is title and authors, not an abstract
)


# ---------------------------------------------------------------------------------------------- reading
def _open(path: Path, password: str | None) -> Any:  # a pypdfium2 PdfDocument (pypdfium2 ships no types)
    import pypdfium2 as pdfium

    with path.open("rb") as handle:
        head = handle.read(1024)
    if not head:
        raise BadFileError("empty file")
    if b"%PDF-" not in head:
        raise BadFileError("not a PDF (no %PDF header)")
    try:
        document = pdfium.PdfDocument(str(path), password=password)
    except pdfium.PdfiumError as exc:
        message = str(exc).lower()
        if _declares_no_pages(path):  # PDFium refuses a document without pages rather than opening it empty
            raise BadFileError("the PDF has zero pages") from None
        if "password" in message:
            raise BadFileError("encrypted PDF: it needs a password (remove the protection and add it again)") from None
        raise BadFileError(f"unreadable PDF ({str(exc).splitlines()[0][:120]})") from None
    if len(document) == 0:
        document.close()
        raise BadFileError("the PDF has zero pages")
    return document


def _declares_no_pages(path: Path) -> bool:
    """True when the file's page tree says /Count 0 and it has no page object (read only for small files)."""
    if path.stat().st_size > 5_000_000:
        return False
    data = path.read_bytes()
    return bool(_EMPTY_PAGE_TREE.search(data)) and not _PAGE_OBJECT.search(data)


# ---------------------------------------------------------------------------------------------- parse
def parse_pdf(path: Path, *, password: str | None = None) -> ParsedDocument:
    """Full text of a PDF as paragraphs with page numbers and section names, plus metadata and references."""
    import pypdfium2 as pdfium

    document = _open(path, password)
    raw_pages, heights, widths = [], [], []
    try:
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            widths.append(page.get_width())
            raw_pages.append(page_lines(textpage, index + 1, widths[-1]))
            heights.append(page.get_height())
            textpage.close()
            page.close()
        metadata = document.get_metadata_dict()
    except pdfium.PdfiumError as exc:  # a damaged file whose header and page tree open, and a page does not
        raise BadFileError(f"unreadable PDF: page {len(raw_pages) + 1} ({str(exc).splitlines()[0][:120]})") from None
    finally:
        document.close()
    notes = [
        f"page {i} has no text layer (a scan?): its text is not indexed (OCR is not supported)"
        for i, lines in enumerate(raw_pages, 1)
        if not lines
    ]
    if len(notes) == len(raw_pages):
        raise BadFileError(f"no text layer on any of its {len(raw_pages)} page(s) (a scan? OCR is not supported)")
    pages = drop_margins(raw_pages, heights)
    body_height = statistics.median([ln.height for page in pages for ln in page] or [10.0])
    paragraphs, references, headings = _paragraphs(pages, widths, body_height)
    words = document_words([ln.text for page in pages for ln in page])
    hyphenating = hyphenating_producer(metadata)
    paragraphs = [
        p.model_copy(update={"text": resolve_hyphens(p.text, words, hyphenating_producer=hyphenating)})
        for p in paragraphs
    ]
    references = [resolve_hyphens(r, words, hyphenating_producer=hyphenating) for r in references]
    front = [p for p in paragraphs if p.section is None and p.page == 1]
    if headings and sum(len(p.text.split()) for p in front) < FRONT_MATTER_WORDS:
        paragraphs = [p for p in paragraphs if p not in front]  # title, authors, affiliations: not passages
    first_page = " ".join(ln.text for ln in (pages[0] if pages else []))
    title_lines = _title_lines(pages, body_height)
    title = _title(metadata, title_lines, words, hyphenating)
    abstract = " ".join(p.text for p in paragraphs if (p.section or "").lower() in ("abstract", "summary"))
    doi = _DOI.search(first_page)
    arxiv = _ARXIV.search(first_page)
    return ParsedDocument(
        title=title,
        authors=_authors(metadata, pages, title_lines),
        doi=doi.group(1).rstrip(".,;)]") if doi else None,
        arxiv_id=arxiv.group(1) if arxiv else None,
        abstract=abstract,
        paragraphs=paragraphs,
        references=references,
        pages=len(raw_pages),
        sections=headings,
        notes=notes,
    )


def _paragraphs(
    pages: list[list[Line]], widths: list[float], body_height: float
) -> tuple[list[Paragraph], list[str], list[str]]:
    paragraphs: list[Paragraph] = []
    references: list[str] = []
    headings: list[str] = []
    section: str | None = None
    in_references = False
    text, start_page, end_page = "", 0, 0
    previous: tuple[int, Line] | None = None

    def close() -> None:
        nonlocal text
        body = finish(text).strip()
        if body:
            if in_references:
                references.append(body)
            else:
                paragraphs.append(
                    Paragraph(
                        text=body,
                        page=start_page,
                        page_end=end_page if end_page != start_page else None,
                        section=section,
                    )
                )
        text = ""

    for page_lines_, width in zip(pages, widths):
        ordered = reading_order(page_lines_, width)
        lefts: dict[int, float] = {}
        for column, line in ordered:
            lefts[column] = min(lefts.get(column, line.x0), line.x0)
        for column, line in ordered:
            name = heading_of(line, body_height)
            if name is not None:
                close()
                section, in_references = name, name.lower() in REFERENCE_HEADINGS
                headings.append(name)
                previous = None
                continue
            if text and _breaks(previous, (column, line), text, body_height, in_references, lefts[column]):
                close()
            if not text:
                start_page = line.page
            text = join_lines(text, line.text)
            end_page = line.page
            previous = (column, line)
    close()
    return paragraphs, references, headings


def _breaks(
    previous: tuple[int, Line] | None,
    current: tuple[int, Line],
    text: str,
    body_height: float,
    in_references: bool,
    column_left: float,
) -> bool:
    """Whether `current` starts a new paragraph (or, in the references, a new entry); `column_left` is the
    left edge of the current line's column on its page, against which a first-line indent is measured."""
    if in_references:
        return bool(_REF_START.match(current[1].text))
    if previous is None:
        return False
    (col_a, a), (col_b, b) = previous, current
    ends_sentence = finish(text).rstrip().endswith(_SENTENCE_END)
    if a.page != b.page or col_a != col_b or b.y1 > a.y1:  # a new column or page: continue an unfinished sentence
        return ends_sentence and b.x0 - column_left > 0.5 * body_height
    gap = a.y0 - b.y1
    if gap > 0.9 * body_height:
        return True
    return b.x0 - a.x0 > 0.5 * body_height and ends_sentence  # first-line indent


# a /Title that names the file rather than the work: a file name, a path or address, "Microsoft Word - x.docx"
_NOT_A_TITLE = re.compile(
    r"(?i)^(?:untitled\b|microsoft "
    r"(?:word|powerpoint|excel)\s*-|document\d*$|slide\s*\d*$|[a-z][a-z0-9+.-]*://|[a-z]:\\|/)"
    r"|^\S+\.(?:html?|xhtml|php|aspx?|pdf|docx?|odt|fodt|rtf|txt|md|tex|ps|dvi|indd)$|\.(?:docx?|odt|rtf|tex|pdf)$"
)
_NAME = re.compile(
    r"(?:[A-Z][\w'’.-]*\.?|(?:van|von|der|de|da|del|di|la|le|du|ten|ter|bin|al)\b)(?:\s+(?:[A-Z][\w'’.-]*\.?|(?:van|von|der|de|da|del|di|la|le|du|ten|ter|bin|al)\b)){1,4}"
)


def metadata_title(metadata: dict) -> str:
    """The /Title entry unless it names the file instead of the work (see `_NOT_A_TITLE`)."""
    title = clean_text(metadata.get("Title") or "")
    return "" if not title or _NOT_A_TITLE.search(title) else title


def _title_lines(pages: list[list[Line]], body_height: float) -> list[Line]:
    """The first page's largest-font lines (at least 1.3 times body text), read top down: the title block."""
    first = [ln for ln in (pages[0] if pages else []) if ln.height >= body_height * 1.3]
    if not first:
        return []
    tallest = max(ln.height for ln in first)
    block = sorted((ln for ln in first if ln.height >= tallest * 0.9), key=lambda ln: -ln.y1)
    return [
        ln for i, ln in enumerate(block) if i == 0 or block[i - 1].y0 - ln.y1 < 2 * ln.height
    ]  # one block, not a later heading


def _title(metadata: dict, lines: list[Line], words: set[str], hyphenating: bool) -> str:
    title = metadata_title(metadata)
    if title:
        return title
    text = ""
    for line in lines:
        text = join_lines(text, line.text)
    return resolve_hyphens(finish(text), words, hyphenating_producer=hyphenating)[:300]


def _authors(metadata: dict, pages: list[list[Line]], title_lines: list[Line]) -> list[str]:
    """The /Author entry; without one, the line under the title when it reads as a list of personal names."""
    raw = clean_text(metadata.get("Author") or "")
    if raw:
        return [a.strip() for a in re.split(r";|,| and ", raw) if len(a.strip()) > 1][:50]
    if not title_lines or not pages:
        return []
    below = sorted((ln for ln in pages[0] if ln.y1 <= title_lines[-1].y0 + 0.5), key=lambda ln: -ln.y1)
    if not below or title_lines[-1].y0 - below[0].y1 > 3 * title_lines[-1].height:
        return []
    text = re.sub(r"[\d*†‡§¶,]+(?=\s*(?:,|;|\band\b|&|$))", "", below[0].text)  # affiliation marks after a name
    names = [n.strip() for n in re.split(r",|;|\band\b|&", text) if n.strip()]
    return names[:50] if names and all(_NAME.fullmatch(n) for n in names) else []


def page_count(path: Path) -> int:
    document = _open(path, None)
    try:
        return len(document)
    finally:
        document.close()
