"""The layout pass over a PDF's pages (agent.library.pdf parses them): text lines as rectangles, running heads and page
numbers in the margins dropped, columns put in reading order, and lines that are section headings."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from agent.library.pdf_text import clean_text

_HEADING_NAMES = (
    "abstract",
    "summary",
    "introduction",
    "background",
    "methods",
    "method",
    "materials and methods",
    "methodology",
    "patients and methods",
    "results",
    "findings",
    "discussion",
    "results and discussion",
    "conclusion",
    "conclusions",
    "related work",
    "experiments",
    "evaluation",
    "limitations",
    "acknowledgements",
    "acknowledgments",
    "funding",
    "references",
    "bibliography",
    "literature cited",
    "works cited",
    "supplementary material",
    "data availability",
    "author contributions",
    "conflict of interest",
    "conflicts of interest",
    "competing interests",
    "appendix",
)
_NUMBERED = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.)\s+(\S.{0,70})$")


@dataclass
class Line:
    """One text line on a page (PDF points, origin bottom-left)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    page: int

    @property
    def height(self) -> float:
        return self.y1 - self.y0


def page_lines(textpage: Any, page_number: int, width: float) -> list[Line]:
    """The page's text lines as PDFium groups its characters: PDFium's text order, its word spaces and its line
    breaks (the generated characters of FPDFText), each line with the box around its characters' font bounds.

    Characters, not PDFium's text rectangles: a browser (Chromium/Skia) places glyphs one by one, so its
    rectangles are single letters and their bounded text overlaps ("Z orb alin", "fo fo r"); PDFium's own word
    grouping reads the same page as "Zorbalin". A line is also cut where the next character is not on its row
    (PDFium runs a line ending in a typesetter's hyphen into the next one, marking the hyphen U+FFFE) or where
    a gap crosses the middle of the page (a gutter between columns that PDFium did not see)."""
    import pypdfium2.raw as pdfium_c

    mid = width / 2
    count = textpage.count_chars()
    page_text = textpage.get_text_range(0, count)
    if len(page_text) != count:  # PDFium left out or added characters (rare): read them one by one
        page_text = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i)) for i in range(count))
    rect = pdfium_c.FS_RECTF()
    lines: list[Line] = []
    chars: list[str] = []
    box: list[float] = []  # left, bottom, right, top of the current line's characters; empty before its first
    last_right = 0.0

    def close() -> None:
        text = clean_text("".join(chars).encode("utf-16", "surrogatepass").decode("utf-16", "replace"))
        if text and box:
            x0, y0, x1, y1 = box
            lines.append(Line(x0, y0, x1, y1, text, page_number))
        chars.clear()
        box.clear()

    for index, char in enumerate(page_text):
        if char in "\r\n":
            close()
            continue
        if char.isspace():
            chars.append(char)
            continue
        pdfium_c.FPDFText_GetLooseCharBox(textpage.raw, index, rect)
        left, bottom, right, top = rect.left, rect.bottom, rect.right, rect.top
        if box:
            height = min(box[3] - box[1], top - bottom)
            if (
                min(box[3], top) - max(box[1], bottom) < 0.5 * height
                or left < last_right - 2 * height
                or (left - last_right > height and last_right < mid < left)
            ):
                close()
        if box:
            box[:] = min(box[0], left), min(box[1], bottom), max(box[2], right), max(box[3], top)
        else:
            box[:] = left, bottom, right, top
        chars.append(char)
        last_right = right
    close()
    return lines


_PAGE_NUMBER = re.compile(r"(?i)[\divxlc\s\-–—/]{1,12}|page \d+( of \d+)?|\d+ of \d+")
# what a browser prints in its header and footer: the date and time, the page's title, its address, "n/m"
_PRINT_FURNITURE = re.compile(
    r"(?i)\b(?:file|https?)://\S+|^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4},?\s+\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?$"
    r"|^\S+\.(?:html?|xhtml|php|aspx?|pdf|docx?|odt|rtf|txt)$"
)
_PAGE_COUNTER = re.compile(r"(?:^|\s)(\d{1,4})\s*/\s*(\d{1,4})$")


def drop_margins(pages: list[list[Line]], heights: list[float]) -> list[list[Line]]:
    """Without bare page numbers, a browser's print header and footer (date, page title, address, "n/m") and
    running heads/feet (the same text, digits aside, in a margin band on at least two pages and half of them)."""

    def in_margin(line: Line, height: float) -> bool:
        return line.y0 > height * 0.92 or line.y1 < height * 0.08

    def pattern(line: Line) -> str:
        return re.sub(r"\d+", "#", line.text)

    def counter(line: Line) -> bool:  # "2/5" where 5 is the page count
        found = _PAGE_COUNTER.search(line.text)
        return found is not None and int(found.group(2)) == len(pages) and 1 <= int(found.group(1)) <= len(pages)

    repeated = Counter(
        key for page, h in zip(pages, heights) for key in {pattern(line) for line in page if in_margin(line, h)}
    )
    keep_limit = max(2, (len(pages) + 1) // 2)
    out = []
    for page, height in zip(pages, heights):
        out.append(
            [
                line
                for line in page
                if not (
                    in_margin(line, height)
                    and (
                        _PAGE_NUMBER.fullmatch(line.text)
                        or _PRINT_FURNITURE.search(line.text)
                        or counter(line)
                        or (len(pages) >= 2 and repeated[pattern(line)] >= keep_limit)
                    )
                )
            ]
        )
    return out


def reading_order(lines: list[Line], width: float) -> list[tuple[int, Line]]:
    """Lines in reading order, each with its column (0 full width or single column, 1 left, 2 right)."""
    mid = width / 2
    tol = width * 0.02
    side = [0 if (ln.x0 < mid - tol and ln.x1 > mid + tol) else (1 if ln.x1 <= mid + tol else 2) for ln in lines]
    two_columns = side.count(1) >= 4 and side.count(2) >= 4
    if not two_columns:
        return [(0, ln) for ln in sorted(lines, key=lambda ln: (-ln.y1, ln.x0))]
    ordered: list[tuple[int, Line]] = []
    band: list[tuple[int, Line]] = []

    def flush() -> None:
        for column in (1, 2):
            ordered.extend(
                sorted(((c, ln) for c, ln in band if c == column), key=lambda item: (-item[1].y1, item[1].x0))
            )
        band.clear()

    for column, line in sorted(zip(side, lines), key=lambda item: (-item[1].y1, item[1].x0)):
        if column == 0:
            flush()
            ordered.append((0, line))
        else:
            band.append((column, line))
    flush()
    return ordered


def heading_of(line: Line, body_height: float) -> str | None:
    """The section name when `line` is a heading: a known name alone on its line, or a numbered title set at
    least as large as body text and not ending like a sentence."""
    text = line.text.strip()
    if len(text) > 80 or (text.endswith((".", ",", ";")) and not _NUMBERED.match(text)):
        return None
    bare = re.sub(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.)\s+", "", text).strip().rstrip(".:")
    if bare.lower() in _HEADING_NAMES:
        return bare
    numbered = _NUMBERED.match(text)
    if (
        numbered
        and line.height >= body_height * 1.05
        and not text.endswith(".")
        and bare[:1].isupper()
        and len(bare.split()) <= 10
    ):
        return bare
    return None
