"""The PDF parser on papers typeset here from real SciFact text: two columns, ligatures, hyphenation, sections,
references, a page without text, and the files it must refuse with a one-line reason."""

from __future__ import annotations

import re

import pytest

from agent.library.models import BadFileError
from agent.library.pdf import metadata_title, parse_pdf
from agent.library.pdf_text import LINE_BREAK_HYPHEN, SOFT_HYPHENS, hyphenating_producer, resolve_hyphens
from evals.pdf_parsers import PRODUCERS, same_title, word_recovery
from evals.pdf_samples import (
    chromium_binary,
    drawable,
    latex_available,
    libreoffice_binary,
    write_chromium,
    write_latex,
    zorbalin_report,
)

# what each producer needs installed, and the Debian package that provides it (.ci/run installs them)
_NEEDS = {
    "reportlab": (lambda: True, "reportlab"),
    "latex": (latex_available, "pdflatex (Debian: texlive-latex-base)"),
    "chromium": (lambda: chromium_binary() is not None, "chromium (Debian: chromium)"),
    "libreoffice-fodt": (lambda: libreoffice_binary() is not None, "soffice (Debian: libreoffice-writer-nogui)"),
    "libreoffice-docx": (lambda: libreoffice_binary() is not None, "soffice (Debian: libreoffice-writer-nogui)"),
}


@pytest.fixture(scope="session")
def produced(papers, tmp_path_factory):
    """The second sample paper's PDF from a producer, made once per session (LibreOffice takes seconds to start)."""
    folder, made = tmp_path_factory.mktemp("produced"), {}

    def make(producer: str):
        installed, package = _NEEDS[producer]
        if not installed():
            pytest.skip(f"{package} is not installed: the {producer} sample PDFs cannot be made here")
        if producer not in made:
            made[producer] = PRODUCERS[producer](papers[1], folder / f"{papers[1].key}-{producer}.pdf")
        assert made[producer] is not None, f"{producer} failed to make the sample PDF"
        return made[producer]

    return make


# LibreOffice's exports take 5 to 15 s each on a busy machine: outside the fast loop, run by CI
_SLOW_PRODUCERS = {"libreoffice-fodt", "libreoffice-docx"}


def _norm(text: str) -> str:
    return " ".join(text.split())


def _full_text(parsed) -> str:
    return _norm(" ".join(p.text for p in parsed.paragraphs))


def test_two_column_paper_reads_every_sentence_in_order(papers, pdfs):
    paper = papers[0]
    parsed = parse_pdf(pdfs[paper.key])
    text = _full_text(parsed)
    sentences = [drawable(_norm(s)) for s in paper.abstract + paper.body_sentences()]
    positions = [text.find(s) for s in sentences]
    assert all(p >= 0 for p in positions), [s for s, p in zip(sentences, positions) if p < 0][:3]
    assert positions == sorted(positions), "columns read out of order"
    assert parsed.sections == ["Abstract", "Introduction", "Methods", "Results", "Discussion", "References"]
    assert parsed.title == paper.title and parsed.doi == paper.doi and parsed.pages == 2


def test_ligatures_and_line_end_hyphens_are_undone(papers, pdfs):
    import pypdf

    paper = papers[0]
    raw = "".join(page.extract_text() for page in pypdf.PdfReader(pdfs[paper.key]).pages)
    assert "\ufb01" in raw or "\ufb02" in raw, "the sample should carry ligature glyphs"
    assert re.search(r"[a-z]-\n[a-z]", raw), "the sample should hyphenate words at line ends"
    parsed = parse_pdf(pdfs[paper.key])
    text = _full_text(parsed)
    assert not any(ch in text for ch in ("\ufb01", "\ufb02", LINE_BREAK_HYPHEN, *SOFT_HYPHENS))
    words = {w for s in paper.abstract + paper.body_sentences() for w in re.findall(r"[A-Za-z]{7,}", s)}
    broken = [w for w in re.findall(r"[A-Za-z]{3,}-[a-z]{3,}", text) if w.replace("-", "") in words]
    assert not broken, broken


def test_sections_pages_and_references(papers, pdfs):
    paper = papers[0]
    parsed = parse_pdf(pdfs[paper.key])
    by_section = {p.section for p in parsed.paragraphs}
    assert {"Abstract", "Introduction", "Methods", "Results", "Discussion"} <= by_section
    assert "References" not in by_section
    assert {p.page for p in parsed.paragraphs} == {1, 2}
    first_result = drawable(_norm(paper.sections[2][1][0][0]))
    assert any(first_result in _norm(p.text) and p.section == "Results" for p in parsed.paragraphs)
    assert (
        len(parsed.references) == 3
        and parsed.references[1].startswith("[2] ")
        and papers[1].doi in parsed.references[1]
    )
    assert all(not p.text.startswith(paper.title) for p in parsed.paragraphs), "the title block is not a passage"


def test_page_without_text_layer_is_noted(papers, pdfs):
    parsed = parse_pdf(pdfs["scanned"])
    plain = parse_pdf(pdfs[papers[3].key])
    assert parsed.pages == plain.pages + 1
    assert [p.text for p in parsed.paragraphs] == [p.text for p in plain.paragraphs]
    assert parsed.notes == ["page 2 has no text layer (a scan?): its text is not indexed (OCR is not supported)"]
    assert 2 not in {p.page for p in parsed.paragraphs} and {1, 3} <= {p.page for p in parsed.paragraphs}


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda tmp, pdfs: pdfs["encrypted"], "encrypted PDF: it needs a password"),
        (lambda tmp, pdfs: _write(tmp / "notes.pdf", b"just some notes\n"), "not a PDF (no %PDF header)"),
        (lambda tmp, pdfs: _write(tmp / "empty.pdf", b""), "empty file"),
        (lambda tmp, pdfs: _zero_pages(tmp / "zero.pdf"), "the PDF has zero pages"),
        (lambda tmp, pdfs: _write(tmp / "half.pdf", pdfs["okafor2010"].read_bytes()[:300]), ""),
    ],
)
def test_bad_files_raise_one_line_reasons(tmp_path, pdfs, make, reason):
    with pytest.raises(BadFileError) as caught:
        parse_pdf(make(tmp_path, pdfs))
    message = str(caught.value)
    assert message.startswith(reason) and "\n" not in message


def test_resolve_hyphens_reads_the_documents_own_words():
    words = {"meta-analysis", "microrna", "microrNAs".lower()}
    mark = LINE_BREAK_HYPHEN
    assert resolve_hyphens(f"a meta{mark}analysis", words) == "a meta-analysis"
    assert resolve_hyphens(f"micro{mark}RNAs", words) == "microRNAs"
    assert resolve_hyphens(f"METH{mark}ODS we", set()) == "METHODS we"
    assert resolve_hyphens(f"ATP{mark}sensitive", set()) == "ATP-sensitive"
    assert resolve_hyphens(f"signifi{mark}cant", set()) == "significant"
    assert resolve_hyphens(f"COVID{mark}19", set()) == "COVID-19"
    assert resolve_hyphens(f"CTX{mark}M-14", set()) == "CTX-M-14"
    assert resolve_hyphens(f"community{mark}based", set()) == "community-based"
    assert resolve_hyphens(f"antihyper{mark}tensive", set()) == "antihypertensive"
    assert resolve_hyphens(f"β {mark}catenin", set()) == "β-catenin"


@pytest.mark.skipif(
    not latex_available(),
    reason="pdflatex is not installed (Debian: texlive-latex-base); the reportlab papers cover the parser",
)
def test_latex_two_column_paper(papers, tmp_path):
    paper = papers[1]
    path = write_latex(paper, tmp_path / "latex.pdf")
    assert path is not None, "pdflatex failed on the sample paper"
    parsed = parse_pdf(path)
    assert (
        parsed.sections[:5] == ["Abstract", "Introduction", "Methods", "Results", "Discussion"]
        and parsed.sections[-1] == "References"
    )
    squash = lambda s: re.sub(r"[^a-z0-9]", "", s.lower())  # noqa: E731 - TeX sets quotes, dashes and Greek its own way
    text = squash(" ".join(p.text for p in parsed.paragraphs))
    sentences = paper.abstract + paper.body_sentences()
    found = sum(squash(s) in text for s in sentences)
    assert found / len(sentences) >= 0.8, f"{found}/{len(sentences)} sentences recovered"
    assert len(parsed.references) == 3
    assert not any(
        mark in p.text for p in parsed.paragraphs for mark in (LINE_BREAK_HYPHEN, *SOFT_HYPHENS, "\ufb01", "\ufb02")
    )


@pytest.mark.parametrize(
    "producer", [pytest.param(p, marks=pytest.mark.slow) if p in _SLOW_PRODUCERS else p for p in PRODUCERS]
)
def test_every_producer_keeps_words_title_authors_and_sections(producer, papers, produced):
    """Issue 39: a PDF printed by Chromium read as "Z orb alin"; each producer's PDF keeps >= 95 % of the words in
    order, the paper's title (not the file name Chromium writes as /Title), its sections and its authors."""
    paper = papers[1]
    parsed = parse_pdf(produced(producer))
    text = " ".join(p.text for p in parsed.paragraphs)
    sentences = paper.abstract + paper.body_sentences()
    recovered = word_recovery(text, [drawable(s) for s in sentences] if producer == "reportlab" else sentences)
    assert recovered >= 0.95, f"{producer}: {recovered:.3f} of the words recovered"
    assert same_title(parsed.title, paper), parsed.title
    assert (
        parsed.sections[:5] == ["Abstract", "Introduction", "Methods", "Results", "Discussion"]
        and parsed.sections[-1] == "References"
    )
    if producer not in ("reportlab", "latex"):  # reportlab writes /Author; LaTeX sets the names in a centred block
        assert parsed.authors == paper.authors


@pytest.mark.skipif(
    chromium_binary() is None,
    reason="chromium is not installed (Debian: chromium): the browser-printed PDF cannot be made here",
)
def test_browser_printed_report_reads_whole_words_without_header_and_footer(tmp_path):
    report = zorbalin_report()
    path = write_chromium(report, tmp_path / "report.pdf")
    assert path is not None, "chromium failed to print the report"
    parsed = parse_pdf(path)
    text = _full_text(parsed)
    assert "Zorbalin reduced migraine frequency in adults with episodic migraine." in text
    assert "randomised 412 adults with episodic migraine to zorbalin 40 mg daily or placebo for 12 weeks" in text
    assert "file://" not in text and not re.search(r"\d{1,2}:\d{2}\s*[AP]M", text) and ".html" not in text, text[-300:]
    assert parsed.title == report.title and parsed.authors == report.authors
    assert parsed.paragraphs[0].section == "Abstract" and parsed.paragraphs[0].text.startswith(
        "Zorbalin is an oral CGRP-pathway modulator"
    )


@pytest.mark.slow
def test_running_head_of_a_two_page_export_is_dropped(produced):
    parsed = parse_pdf(produced("libreoffice-fodt"))
    assert parsed.pages == 2
    assert not any("Journal of Test Papers" in p.text for p in parsed.paragraphs), "the running head is not a passage"
    assert not any(re.fullmatch(r"\d+", p.text) for p in parsed.paragraphs)


@pytest.mark.parametrize(
    "value, title",
    [
        ("okafor2010.html", ""),
        ("file:///tmp/tmpab12/report.html", ""),
        ("https://example.org/papers/42", ""),
        ("Microsoft Word - trial_report_v3.docx", ""),
        ("Microsoft Word - Document1", ""),
        ("C:\\Users\\ada\\draft.doc", ""),
        ("Untitled", ""),
        ("Document1", ""),
        ("zorbalin final.docx", ""),
        ("Zorbalin for migraine: a trial", "Zorbalin for migraine: a trial"),
        ("Serving models with Node.js in the lab", "Serving models with Node.js in the lab"),
    ],
)
def test_a_metadata_title_that_names_the_file_is_not_the_title(value, title):
    assert metadata_title({"Title": value}) == title


def test_browsers_and_word_processors_keep_their_line_end_hyphens():
    mark = LINE_BREAK_HYPHEN
    chromium = {"Producer": "Skia/PDF m150", "Creator": "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/150.0.0.0"}
    assert not hyphenating_producer(chromium) and not hyphenating_producer(
        {"Producer": "LibreOffice 7.4", "Creator": "Writer"}
    )
    assert not hyphenating_producer({"Producer": "Microsoft® Word for Microsoft 365"})
    assert hyphenating_producer({"Producer": "pdfTeX-1.40.25"}) and hyphenating_producer(
        {"Producer": "ReportLab PDF Library"}
    )
    assert (
        resolve_hyphens(f"RNAi{mark}deficient methionyl{mark}tRNA", set(), hyphenating_producer=False)
        == "RNAi-deficient methionyl-tRNA"
    )
    assert (
        resolve_hyphens(f"signifi{mark}cant", set(), hyphenating_producer=False) == "significant"
    )  # still a dictionary word
    assert resolve_hyphens(f"methionyl{mark}tRNA", set()) == "methionyltRNA"  # a typesetter's break, as before


def _zero_pages(path):
    """A well-formed PDF with no pages (pypdf writes one with a valid cross-reference table)."""
    import pypdf

    with path.open("wb") as handle:
        pypdf.PdfWriter().write(handle)
    return path


def _write(path, data: bytes):
    path.write_bytes(data)
    return path
