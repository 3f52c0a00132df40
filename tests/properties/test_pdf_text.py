"""Properties of PDF text (agent/library/pdf_text.py, agent/library/pdf.py): any text through the cleaning functions
gives one line without control characters, and cleaning it again changes nothing; any lines joined and their
line-end hyphens settled leave no mark behind; any bytes given to the PDF reader, a real PDF damaged anywhere
included, give a document or a BadFileError of one line."""

from __future__ import annotations

import functools
import io
import re
import tempfile
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from agent.library.importers import read
from agent.library.models import BadFileError
from agent.library.pdf_text import (
    LINE_BREAK_HYPHEN,
    SOFT_HYPHENS,
    clean_text,
    document_words,
    finish,
    join_lines,
    resolve_hyphens,
)
from tests.properties.checks import result_or_typed_error

PDF_LIKE = st.sampled_from(["-", "\u00ad", "\x02", "\ufffe", "\ufb01", "\ufb03", "\r", "\n", "\t", "\x00", "\u200b"])
texts = st.lists(st.text(max_size=12) | PDF_LIKE, max_size=12).map("".join)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\ufeff\ufffd]")


@given(text=texts)
@example(text="e\ufb03cient\u00ad")
def test_cleaned_text_is_one_clean_line_and_stays_so(text):
    cleaned = clean_text(text)
    assert not _CONTROL.search(cleaned.translate(dict.fromkeys(map(ord, SOFT_HYPHENS)))), cleaned  # markers stay
    assert "\n" not in cleaned and "  " not in cleaned
    assert cleaned == cleaned.strip() and clean_text(cleaned) == cleaned


@given(lines=st.lists(texts.map(clean_text), max_size=6), hyphenating=st.booleans())
@example(lines=["signifi-", "cant", "COVID-", "19 meta-", "analysis"], hyphenating=True)
@example(lines=["a\u00ad", "-b", "\x02"], hyphenating=False)
@example(lines=["(\u00ad", "b"], hyphenating=True)  # a marked line end after a symbol: no word to settle it in
def test_joined_lines_leave_no_hyphen_mark(lines, hyphenating):
    joined = ""
    for line in lines:
        joined = join_lines(joined, line)
    settled = finish(resolve_hyphens(joined, document_words(lines), hyphenating_producer=hyphenating))
    assert LINE_BREAK_HYPHEN not in settled
    assert not settled or settled[-1] not in SOFT_HYPHENS


@functools.cache
def a_real_pdf() -> bytes:
    """One page with two lines of text, typeset by reportlab."""
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out, pagesize=(400, 400), invariant=1)
    page.drawString(40, 340, "Aerobic exercise increases hippocampal")
    page.drawString(40, 324, "volume in older adults.")
    page.save()
    return out.getvalue()


def _read_pdf(content: bytes) -> object:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "paper.pdf"
        path.write_bytes(content)
        return read(path)


def test_the_real_pdf_reads():
    [item] = _read_pdf(a_real_pdf()).items  # type: ignore[attr-defined]
    assert "hippocampal" in " ".join(p.text for p in item.parsed.paragraphs)


@st.composite
def damaged_pdfs(draw: st.DrawFn) -> bytes:
    """The real PDF cut short, or with a few bytes overwritten or inserted anywhere."""
    data = bytearray(a_real_pdf())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["cut", "overwrite", "insert"]))
        chunk = draw(st.binary(min_size=1, max_size=8))
        if kind == "cut":
            del data[at:]
        elif kind == "overwrite":
            data[at : at + len(chunk)] = chunk
        else:
            data[at:at] = chunk
    return bytes(data)


@given(content=st.binary(max_size=300) | st.binary(max_size=300).map(lambda b: b"%PDF-1.7\n" + b) | damaged_pdfs())
@example(content=b"")
@example(content=a_real_pdf().replace(b"  /Type /Page\n", b"  /Type /Xage\n"))  # PDFium opens it, not its page
@example(content=a_real_pdf().replace(b"/Count 1", b"/Count 2"))  # a second page that is not there
@example(content=b"%PDF-1.4\n1 0 obj << /Type /Pages /Count 0 /Kids [] >> endobj\n")
def test_any_bytes_give_a_document_or_one_line(content):
    result_or_typed_error(lambda: _read_pdf(content), BadFileError)
