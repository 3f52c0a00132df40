"""PDF parsers compared on two-column sample papers typeset here from SciFact text (evals/pdf_samples.py).

    python -m evals.pdf_parsers --corpus ../shared/data/scifact/corpus.jsonl --papers 6 [--json]

Rows: pypdfium2 and pypdf plain text (one string per page, as each library returns it), and SPARKIT's parser
(agent/library/pdf.py: pypdfium2 plus the layout pass). Each paper is typeset twice: with reportlab (hyphens
at every long line end, ligature glyphs) and, when installed, with pdflatex (TeX's hyphenation and fonts).

- exact: share of the paper's sentences found verbatim (whitespace collapsed, quotes unified): text a passage
  can quote. A word split at a line end, a ligature glyph or a column read across breaks it.
- chars: share found after keeping only letters and digits: what the characters and their order alone recover.
- order: share of consecutive sentence pairs found in reading order (by their 'chars' positions).
- ligatures: fi/fl ligature glyphs left in the text; ms/page: wall time per page.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

from evals.pdf_samples import drawable, sample_papers, write_latex, write_reportlab
from evals.report import publish

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


def sparkit_text(path: Path) -> tuple[str, int]:
    from agent.library.pdf import parse_pdf

    parsed = parse_pdf(path)
    return "\n".join(p.text for p in parsed.paragraphs), parsed.pages


PARSERS = {"pypdfium2 (plain text)": pdfium_text, "pypdf (plain text)": pypdf_text, "sparkit (pypdfium2 + layout)": sparkit_text}


def score(text: str, sentences: list[str]) -> dict[str, float]:
    flat, squashed = _ws(text), _chars(text)
    exact = sum(_ws(s) in flat for s in sentences)
    positions = [squashed.find(_chars(s)) for s in sentences]
    pairs = [(a, b) for a, b in zip(positions, positions[1:]) if a >= 0 and b >= 0]
    return {"exact": exact / len(sentences), "chars": sum(p >= 0 for p in positions) / len(sentences),
            "order": sum(a < b for a, b in pairs) / len(pairs) if pairs else 0.0,
            "ligatures": float(sum(text.count(ch) for ch in "\ufb00\ufb01\ufb02\ufb03\ufb04"))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="SciFact corpus.jsonl (the papers' text)")
    parser.add_argument("--papers", type=int, default=6)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    papers = sample_papers(args.corpus, args.papers, seed=7)
    with tempfile.TemporaryDirectory() as tmp:
        samples = []
        for paper in papers:
            sentences = paper.abstract + paper.body_sentences()
            samples.append(("reportlab", write_reportlab(paper, Path(tmp) / f"{paper.key}-rl.pdf"), [drawable(_ws(s)) for s in sentences]))
            latex = write_latex(paper, Path(tmp) / f"{paper.key}-tex.pdf")
            if latex is not None:
                samples.append(("latex", latex, sentences))
        results: dict[str, float] = {}
        for typesetter in sorted({kind for kind, _, _ in samples}):
            chosen = [(path, sentences) for kind, path, sentences in samples if kind == typesetter]
            for name, extract in PARSERS.items():
                extract(chosen[0][0])  # warm-up: imports and library initialisation are not timed
                totals: dict[str, float] = {}
                pages, elapsed = 0, 0.0
                for path, sentences in chosen:
                    started = time.perf_counter()
                    text, n = extract(path)
                    elapsed += time.perf_counter() - started
                    pages += n
                    for key, value in score(text, sentences).items():
                        totals[key] = totals.get(key, 0.0) + value
                for key, value in totals.items():
                    results[f"{typesetter} | {name} | {key}"] = value / len(chosen) if key != "ligatures" else value
                results[f"{typesetter} | {name} | ms/page"] = 1000 * elapsed / pages
    publish("PDF parsers on two-column sample papers", results, {"papers": args.papers, "typesetters": sorted({k for k, _, _ in samples})}, args.json)


if __name__ == "__main__":
    main()
