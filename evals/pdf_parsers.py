"""PDF parsers compared on two-column sample papers made here from SciFact text (evals/pdf_samples.py).

    python -m evals.pdf_parsers --corpus ../shared/data/scifact/corpus.jsonl --papers 6 [--json]

Rows: pypdfium2 and pypdf plain text (one string per page, as each library returns it), pdfminer.six's
layout analysis (its word and line grouping; when installed), and SPARKIT's parser (agent/library/pdf.py:
pypdfium2 plus the layout pass). Each paper is produced the ways people's PDFs are, each when installed:
reportlab (hyphens at every long line end, ligature glyphs), pdflatex (TeX's hyphenation and fonts), headless
Chromium printing an HTML page in two CSS columns (glyphs placed one by one, a header and footer on every
page), and LibreOffice exporting a .fodt and a .docx with a two-column section.

- words: share of the paper's words (lower-cased \\w+ tokens, NFKC) recovered in order (difflib's matching
  blocks): "Z orb alin" for "Zorbalin" loses a word, header and footer text costs nothing here.
- title: share of papers whose parsed title is the paper's title (SPARKIT only; the others return no title).

- exact: share of the paper's sentences found verbatim (whitespace collapsed, quotes unified): text a passage
  can quote. A word split at a line end, a ligature glyph or a column read across breaks it.
- chars: share found after keeping only letters and digits: what the characters and their order alone recover.
- order: share of consecutive sentence pairs found in reading order (by their 'chars' positions).
- ligatures: fi/fl ligature glyphs left in the text; ms/page: wall time per page.
"""

from __future__ import annotations

import argparse
import difflib
import itertools
import re
import tempfile
import time
import unicodedata
from pathlib import Path

from evals.pdf_samples import (
    SamplePaper,
    drawable,
    sample_papers,
    write_chromium,
    write_latex,
    write_libreoffice,
    write_reportlab,
)
from evals.report import publish

# how each producer makes a sample paper's PDF; None back when its program is not installed
PRODUCERS = {
    "reportlab": write_reportlab,
    "latex": write_latex,
    "chromium": write_chromium,
    "libreoffice-fodt": lambda paper, path: write_libreoffice(paper, path, source="fodt"),
    "libreoffice-docx": lambda paper, path: write_libreoffice(paper, path, source="docx"),
}

_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})


def _ws(text: str) -> str:
    return " ".join(text.translate(_QUOTES).split())


def _chars(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def pdfium_text(path: Path) -> tuple[str, int]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        pages = [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()
    return "\n".join(pages), len(pages)


def pypdf_text(path: Path) -> tuple[str, int]:
    import pypdf

    reader = pypdf.PdfReader(str(path))
    return "\n".join(page.extract_text() for page in reader.pages), len(reader.pages)


def pdfminer_text(path: Path) -> tuple[str, int]:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer

    pages = list(extract_pages(str(path)))
    return "\n".join(box.get_text() for page in pages for box in page if isinstance(box, LTTextContainer)), len(pages)


def sparkit_text(path: Path) -> tuple[str, int]:
    from agent.library.pdf import parse_pdf

    parsed = parse_pdf(path)
    return "\n".join(p.text for p in parsed.paragraphs), parsed.pages


def sparkit_title(path: Path) -> str:
    from agent.library.pdf import parse_pdf

    return parse_pdf(path).title


def _pdfminer_installed() -> bool:
    try:
        import pdfminer.high_level  # noqa: F401
    except ImportError:
        return False
    return True


PARSERS = {
    "pypdfium2 (plain text)": pdfium_text,
    "pypdf (plain text)": pypdf_text,
    **({"pdfminer.six (layout)": pdfminer_text} if _pdfminer_installed() else {}),
    "sparkit (pypdfium2 + layout)": sparkit_text,
}


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())


def word_recovery(text: str, sentences: list[str]) -> float:
    """Share of the sentences' words found in `text` in the same order (extra text, such as a page footer,
    does not count against it; a word broken in two or run into its neighbour does)."""
    source, found = _words(" ".join(sentences)), _words(text)
    matcher = difflib.SequenceMatcher(None, source, found, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / max(1, len(source))


def same_title(parsed: str, paper: SamplePaper) -> bool:
    """The parsed title is the paper's (whitespace, quotes and case aside)."""
    return _ws(parsed).casefold() == _ws(paper.title).casefold()


def score(text: str, sentences: list[str]) -> dict[str, float]:
    flat, squashed = _ws(text), _chars(text)
    exact = sum(_ws(s) in flat for s in sentences)
    positions = [squashed.find(_chars(s)) for s in sentences]
    pairs = [(a, b) for a, b in itertools.pairwise(positions) if a >= 0 and b >= 0]
    return {
        "words": word_recovery(text, sentences),
        "exact": exact / len(sentences),
        "chars": sum(p >= 0 for p in positions) / len(sentences),
        "order": sum(a < b for a, b in pairs) / len(pairs) if pairs else 0.0,
        "ligatures": float(sum(text.count(ch) for ch in "\ufb00\ufb01\ufb02\ufb03\ufb04")),
    }


def make_samples(
    papers: list[SamplePaper], folder: Path, producers: list[str]
) -> list[tuple[str, SamplePaper, Path, list[str]]]:
    """(producer, paper, PDF, sentences as the PDF can show them) for each producer that is installed."""
    samples = []
    for paper in papers:
        sentences = paper.abstract + paper.body_sentences()
        for producer in producers:
            path = PRODUCERS[producer](paper, folder / f"{paper.key}-{producer}.pdf")
            if path is not None:
                shown = [drawable(_ws(s)) for s in sentences] if producer == "reportlab" else sentences
                samples.append((producer, paper, path, shown))
    return samples


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="SciFact corpus.jsonl (the papers' text)")
    parser.add_argument("--papers", type=int, default=6)
    parser.add_argument("--producers", default=",".join(PRODUCERS), help=f"comma-separated, of {', '.join(PRODUCERS)}")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    producers = [p.strip() for p in args.producers.split(",") if p.strip()]
    unknown = sorted(set(producers) - set(PRODUCERS))
    if unknown:
        parser.error(f"unknown producer(s): {', '.join(unknown)}")
    papers = sample_papers(args.corpus, args.papers, seed=7)
    with tempfile.TemporaryDirectory() as tmp:
        samples = make_samples(papers, Path(tmp), producers)
        results: dict[str, float] = {}
        made = [p for p in producers if any(kind == p for kind, *_ in samples)]
        for producer in made:
            chosen = [(paper, path, sentences) for kind, paper, path, sentences in samples if kind == producer]
            for name, extract in PARSERS.items():
                extract(chosen[0][1])  # warm-up: imports and library initialisation are not timed
                totals: dict[str, float] = {}
                pages, elapsed = 0, 0.0
                for _, path, sentences in chosen:
                    started = time.perf_counter()
                    text, n = extract(path)
                    elapsed += time.perf_counter() - started
                    pages += n
                    for key, value in score(text, sentences).items():
                        totals[key] = totals.get(key, 0.0) + value
                for key, value in totals.items():
                    results[f"{producer} | {name} | {key}"] = value / len(chosen) if key != "ligatures" else value
                results[f"{producer} | {name} | ms/page"] = 1000 * elapsed / pages
            results[f"{producer} | sparkit (pypdfium2 + layout) | title"] = sum(
                same_title(sparkit_title(path), paper) for paper, path, _ in chosen
            ) / len(chosen)
    publish(
        "PDF parsers on two-column sample papers",
        results,
        {"papers": args.papers, "producers": made, "missing": [p for p in producers if p not in made]},
        args.json,
    )


if __name__ == "__main__":
    main()
