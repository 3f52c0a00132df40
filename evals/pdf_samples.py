"""Realistic sample papers for the PDF parser's tests and the parser comparison, typeset here at run time.

Nothing is committed: each paper's text is real scientific prose read from a SciFact corpus (one abstract for
the paper's abstract, others for its introduction, methods, results and discussion), set in two columns with
section headings, page numbers and a numbered references section.

- `write_reportlab` (pure Python, always available) draws the pages itself, so the hard cases are certain to
  occur: words hyphenated at line ends, fi/fl drawn as ligature glyphs (U+FB01/FB02 in a TrueType font), an
  optional page that is only an image (no text layer), optional encryption.
- `write_latex` typesets the same paper with pdflatex (`\\documentclass[twocolumn]{article}`) when TeX is
  installed (Debian's texlive-latex-base): TeX's own hyphenation, ligatures and Type 1 fonts.
- `write_chromium` prints the paper as an HTML page (two CSS columns, no <title>, so the PDF's /Title is the
  file name) with headless Chromium (Debian's chromium), header and footer on: date, file name, `file://`
  address and "n/m" on every page, as a browser's "Save as PDF" does. Chromium places glyphs one by one.
- `write_libreoffice` exports the paper written as a flat OpenDocument text (.fodt: a running head and a page
  number footer, a two-column section) or as a Word .docx (two-column section) with LibreOffice
  (`soffice --headless --convert-to pdf`; Debian's libreoffice-writer-nogui). Neither file sets a title, as
  most word-processor files do not.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

NAMES = (
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Tanaka",
    "Haddad",
    "Kowalski",
    "Ferreira",
    "Nguyen",
    "Schmidt",
    "Abebe",
    "Rossi",
    "Patel",
)
SECTIONS = ("Introduction", "Methods", "Results", "Discussion")


@dataclass
class SamplePaper:
    """One paper to typeset: real sentences, synthetic authors and DOI (Crossref's 10.5555 test prefix)."""

    key: str
    title: str
    authors: list[str]
    year: int
    doi: str
    abstract: list[str]
    sections: list[tuple[str, list[list[str]]]]  # heading, paragraphs of sentences
    references: list[str] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)  # SciFact documents whose text it carries

    def body_sentences(self) -> list[str]:
        return [s for _, paragraphs in self.sections for p in paragraphs for s in p]

    def bibtex(self) -> str:
        authors = " and ".join(f"{a.split()[-1]}, {' '.join(a.split()[:-1])}" for a in self.authors)
        return (
            f"@article{{{self.key},\n  title = {{{self.title}}},\n  author = {{{authors}}},\n  year = "
            f"{{{self.year}}},\n"
            f"  journal = {{Journal of Test Papers}},\n  doi = {{{self.doi}}},\n  abstract = "
            f"{{{' '.join(self.abstract)}}}\n}}\n"
        )


def _corpus(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        docs = [json.loads(line) for line in handle if line.strip()]
    return [d for d in docs if len(d.get("abstract") or []) >= 7 and 30 <= len(d.get("title") or "") <= 150]


def sample_papers(corpus: Path, count: int = 3, *, seed: int = 19) -> list[SamplePaper]:
    """`count` papers; paper i cites paper i+1 by title (so the citation hop has an edge to follow)."""
    docs = _corpus(corpus)
    rng = random.Random(seed)
    picked = rng.sample(docs, count * 5)
    papers = []
    for i in range(count):
        head, *body = picked[i * 5 : i * 5 + 5]
        sections = []
        for name, doc in zip(SECTIONS, body):
            sentences = doc["abstract"]
            half = len(sentences) // 2
            sections.append((name, [sentences[:half], sentences[half:]]))
        surname = NAMES[i % len(NAMES)]
        papers.append(
            SamplePaper(
                key=f"{surname.lower()}{2010 + i}",
                title=head["title"].rstrip("."),
                authors=[f"Ada {surname}", f"Ben {NAMES[(i + 5) % len(NAMES)]}", f"Chen {NAMES[(i + 7) % len(NAMES)]}"],
                year=2010 + i,
                doi=f"10.5555/sparkit.{head['doc_id']}",
                abstract=list(head["abstract"]),
                sections=sections,
                doc_ids=[str(d["doc_id"]) for d in (head, *body)],
            )
        )
    for i, paper in enumerate(papers):
        cited = papers[(i + 1) % count] if count > 1 else None
        paper.references = [
            f"{NAMES[(i + 3) % len(NAMES)]} D, {NAMES[(i + 4) % len(NAMES)]} E. A survey of unrelated "
            "results in general medicine. Ann Test Med. 2001;12:1-9.",
            *(
                [
                    f"{cited.authors[0].split()[-1]} A, {cited.authors[1].split()[-1]} B. {cited.title}. J Test Pap. "
                    f"{cited.year}. doi:{cited.doi}"
                ]
                if cited
                else []
            ),
            f"{NAMES[(i + 6) % len(NAMES)]} F. Methods for the analysis of clinical cohorts. Stat Test. 1999;4:20-31.",
        ]
    return papers


def zorbalin_report() -> SamplePaper:
    """A made-up two-column trial report (the case of issue 39: a browser-printed PDF read as "Z orb alin"). Its
    abstract answers "Does zorbalin reduce migraine frequency in adults?" in one sentence; zorbalin is fictional."""
    return SamplePaper(
        key="zorbalin-trial-report",
        title="Zorbalin for the prevention of episodic migraine in adults: a randomised placebo-controlled trial",
        authors=["Ada Okafor", "Ben Lindqvist", "Chen Moreau"],
        year=2024,
        doi="10.5555/sparkit.zorbalin",
        abstract=[
            "Zorbalin is an oral CGRP-pathway modulator developed for the prevention of migraine.",
            "We randomised 412 adults with episodic migraine to zorbalin 40 mg daily or placebo for 12 weeks.",
            "Zorbalin reduced migraine frequency in adults with episodic migraine.",
            "Monthly migraine days fell by 3.9 with zorbalin and by 1.8 with placebo (difference 2.1 days, "
            "95% CI 1.4 to 2.8).",
            "Nausea and dizziness were more common with zorbalin than with placebo, and few participants "
            "stopped treatment.",
        ],
        sections=[
            (
                "Introduction",
                [
                    [
                        (
                            "Migraine is a common and disabling neurological "
                            "disorder that affects about one adult in seven."
                        ),
                        "Preventive treatment is offered to people with frequent attacks, yet many stop the "
                        "available drugs because of side effects.",
                        "Calcitonin gene-related peptide has a central role in migraine, and antibodies against it "
                        "prevent attacks.",
                    ],
                    [
                        (
                            "Zorbalin is a small molecule that modulates the "
                            "same pathway and is taken by mouth once a day."
                        ),
                        "In an earlier dose-finding study, 40 mg daily was well tolerated and lowered the frequency "
                        "of attacks.",
                        "We report a randomised trial that compared zorbalin 40 mg daily with placebo in adults with "
                        "episodic migraine.",
                    ],
                ],
            ),
            (
                "Methods",
                [
                    [
                        "Adults aged 18 to 65 years with four to fourteen migraine days a month were eligible.",
                        "Participants kept an electronic headache diary during a four-week baseline period and "
                        "throughout the trial.",
                        "They were randomly assigned in a one-to-one ratio to zorbalin 40 mg or a matching placebo "
                        "taken every morning.",
                    ],
                    [
                        (
                            "The primary outcome was the change in mean monthly "
                            "migraine days from baseline to weeks 9 to 12."
                        ),
                        "Secondary outcomes were the share of participants whose migraine days halved, the use of "
                        "acute medication and adverse events.",
                        "Analyses followed the intention-to-treat principle with a mixed model for repeated measures.",
                    ],
                ],
            ),
            (
                "Results",
                [
                    [
                        "Of 468 people screened, 412 were randomised at 23 centres and 389 completed the twelve weeks.",
                        "Baseline characteristics were balanced, with a mean of 8.2 migraine days a month.",
                        "Mean monthly migraine days fell by 3.9 with zorbalin and by 1.8 with placebo.",
                    ],
                    [
                        "Migraine days halved in 47 percent of participants taking zorbalin and in 26 percent of "
                        "those taking placebo.",
                        "Acute medication was used on 2.3 fewer days a month with zorbalin than with placebo.",
                        "Nausea occurred in 9 percent and dizziness in 6 percent of participants taking zorbalin.",
                    ],
                ],
            ),
            (
                "Discussion",
                [
                    [
                        (
                            "In this trial, zorbalin reduced the frequency of "
                            "migraine attacks in adults with episodic migraine."
                        ),
                        (
                            "The size of the effect is similar to that reported "
                            "for injected antibodies against the same pathway."
                        ),
                        "Oral dosing may suit people who prefer not to inject themselves.",
                    ],
                    [
                        "The trial was short and excluded people with chronic migraine or medication overuse.",
                        (
                            "Longer studies are needed to establish whether the "
                            "benefit persists and whether rarer harms emerge."
                        ),
                    ],
                ],
            ),
        ],
        references=[
            "Tanaka D, Haddad E. The burden of migraine in working-age adults. Ann Test Med. 2019;12:1-9.",
            "Ferreira F. Calcitonin gene-related peptide and the migraine attack. Neurol Test. 2020;4:20-31.",
        ],
    )


# ---------------------------------------------------------------------------------------------- reportlab
PAGE_W, PAGE_H = 612.0, 792.0
MARGIN, GAP = 54.0, 18.0
COL_W = (PAGE_W - 2 * MARGIN - GAP) / 2
BODY, LEADING = 9.5, 12.0
LIGATURES = {"ffi": "\ufb03", "ffl": "\ufb04", "fi": "\ufb01", "fl": "\ufb02"}


DEJAVU = Path("/usr/share/fonts/truetype/dejavu")  # Debian's fonts-dejavu-core: Greek and every ligature glyph
_charset: set[int] = set()


def _fonts() -> tuple[str, str]:
    """DejaVu Sans when installed, else the Vera that ships inside reportlab (no Greek; fi/fl only)."""
    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    vera = Path(reportlab.__file__).parent / "fonts"
    if (DEJAVU / "DejaVuSans.ttf").exists() and (DEJAVU / "DejaVuSans-Bold.ttf").exists():
        files = (DEJAVU / "DejaVuSans.ttf", DEJAVU / "DejaVuSans-Bold.ttf")
    else:
        files = (vera / "Vera.ttf", vera / "VeraBd.ttf")
    for name, file in zip(("SampleSans", "SampleSans-Bold"), files):
        if name not in pdfmetrics.getRegisteredFontNames():
            font = TTFont(name, str(file))
            pdfmetrics.registerFont(font)
            if name == "SampleSans":
                _charset.update(font.face.charToGlyph)
    return "SampleSans", "SampleSans-Bold"


def drawable(text: str) -> str:
    """`text` as the sample font can draw it: characters it lacks become '?'. Tests compare extracted text with this."""
    _fonts()
    return "".join(ch if ord(ch) in _charset or ch == " " else "?" for ch in text)


def ligate(text: str) -> str:
    """fi, fl, ffi, ffl as the single ligature glyphs a typesetter draws (those the font has)."""
    for plain, glyph in LIGATURES.items():
        if ord(glyph) in _charset:
            text = text.replace(plain, glyph)
    return text


def _wrap(
    words: list[str], width: float, font: str, size: float, *, indent: float = 0.0, hyphenate: bool = True
) -> list[str]:
    """Greedy line breaking that hyphenates a long word at the line end whenever a 3+ letter prefix fits."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines, line = [], ""
    queue = list(words)
    while queue:
        word = queue.pop(0)
        room = width - (indent if not lines else 0.0)
        candidate = f"{line} {word}" if line else word
        if stringWidth(candidate, font, size) <= room:
            line = candidate
            continue
        cuts = range(len(word) - 3, 2, -1) if hyphenate and word.isalpha() and len(word) >= 7 else ()
        cut = next((k for k in cuts if stringWidth(f"{line} {word[:k]}-".strip(), font, size) <= room), None)
        if cut is not None:
            lines.append(f"{line} {word[:cut]}-".strip())
            queue.insert(0, word[cut:])
            line = ""
        elif line:
            lines.append(line)
            line = ""
            queue.insert(0, word)
        else:
            lines.append(word)  # a word wider than the column stands alone
    if line:
        lines.append(line)
    return lines


class _Flow:
    """Two-column flow over pages: a cursor that moves down a column, then to the next column or page."""

    def __init__(self, canvas, top: float, scan: list[str] | None = None):
        self.c, self.col, self.y, self.page, self.top_of_page = canvas, 0, top, 1, top
        self.scan = scan  # lines pictured on an image-only page inserted after page 1

    def x(self) -> float:
        return MARGIN + self.col * (COL_W + GAP)

    def need(self, height: float) -> None:
        if self.y - height < MARGIN + 18:
            if self.col == 0:
                self.col, self.y = 1, self.top_of_page
            else:
                self.new_page()

    def new_page(self) -> None:
        self.footer()
        self.c.showPage()
        self.page += 1
        if self.scan is not None and self.page == 2:
            _image_page(self.c, self.scan)
            self.c.showPage()
            self.page += 1
        self.col, self.y = 0, PAGE_H - MARGIN
        self.top_of_page = self.y

    def footer(self) -> None:
        self.c.setFont("SampleSans", 8)
        self.c.drawCentredString(PAGE_W / 2, MARGIN - 20, str(self.page))


def _image_page(canvas, lines: list[str]) -> None:
    """A page that is only a picture of text (a scan): nothing on it is extractable."""
    from PIL import Image, ImageDraw
    from reportlab.lib.utils import ImageReader

    image = Image.new("L", (850, 1100), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((60, 80 + i * 22), line, fill=0)
    canvas.drawImage(ImageReader(image), 0, 0, PAGE_W, PAGE_H)


def write_reportlab(
    paper: SamplePaper, path: Path, *, scanned_page: bool = False, user_password: str | None = None
) -> Path:
    """Typeset `paper` into `path` (two columns, hyphenation, ligature glyphs); optionally insert an image-only
    page after the first (a scan: no text layer) or encrypt the file with a user password."""
    from reportlab.lib.pdfencrypt import StandardEncryption
    from reportlab.pdfgen.canvas import Canvas

    regular, bold = _fonts()
    encrypt = StandardEncryption(user_password, ownerPassword=user_password + "-owner") if user_password else None
    c = Canvas(str(path), pagesize=(PAGE_W, PAGE_H), encrypt=encrypt, invariant=1)
    c.setTitle(paper.title)
    c.setAuthor(", ".join(paper.authors))
    y = PAGE_H - MARGIN
    for line in _wrap(paper.title.split(), PAGE_W - 2 * MARGIN, bold, 16, hyphenate=False):
        c.setFont(bold, 16)
        c.drawString(MARGIN, y - 16, ligate(drawable(line)))
        y -= 20
    c.setFont(regular, 10)
    c.drawString(MARGIN, y - 14, ", ".join(paper.authors))
    c.drawString(MARGIN, y - 28, f"Journal of Test Papers ({paper.year})   doi:{paper.doi}")
    scan = ["(scanned supplementary page)", *[s[:90] for s in paper.abstract[:4]]] if scanned_page else None
    flow = _Flow(c, y - 48, scan)

    def heading(text: str) -> None:
        flow.need(LEADING * 3)
        flow.y -= 6
        c.setFont(bold, 11)
        c.drawString(flow.x(), flow.y - 11, text)
        flow.y -= 16

    def paragraph(text: str, *, indent: float = 10.0, hanging: bool = False) -> None:
        lines = _wrap(text.split(), COL_W, regular, BODY, indent=0.0 if hanging else indent)
        for i, line in enumerate(lines):
            flow.need(LEADING)
            c.setFont(regular, BODY)
            offset = (indent if i == 0 else 0.0) if not hanging else (0.0 if i == 0 else 12.0)
            c.drawString(flow.x() + offset, flow.y - BODY, ligate(drawable(line)))
            flow.y -= LEADING
        flow.y -= 4

    heading("Abstract")
    paragraph(" ".join(paper.abstract), indent=0.0)
    for number, (name, paragraphs) in enumerate(paper.sections, 1):
        heading(f"{number} {name}")
        for paragraph_sentences in paragraphs:
            paragraph(" ".join(paragraph_sentences))
    heading("References")
    for number, reference in enumerate(paper.references, 1):
        paragraph(f"[{number}] {reference}", hanging=True)
    flow.footer()
    c.showPage()
    c.save()
    return path


# ---------------------------------------------------------------------------------------------- LaTeX
_TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def _tex(text: str) -> str:
    out = "".join(_TEX_ESCAPES.get(ch, ch) for ch in text)
    return "".join(ch if ord(ch) < 128 else _unicode_tex(ch) for ch in out)


def _unicode_tex(ch: str) -> str:
    import unicodedata

    plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return plain or {
        "α": r"$\alpha$",
        "β": r"$\beta$",
        "γ": r"$\gamma$",
        "κ": r"$\kappa$",
        "μ": r"$\mu$",
        "±": r"$\pm$",
        "×": r"$\times$",
        "≥": r"$\geq$",
        "≤": r"$\leq$",
        "−": "-",
        "–": "--",
        "—": "---",
        "’": "'",
        "‘": "`",
        "“": "``",
        "”": "''",
    }.get(ch, "?")


def latex_available() -> bool:
    return shutil.which("pdflatex") is not None


def latex_source(paper: SamplePaper) -> str:
    body = [
        r"\documentclass[twocolumn,10pt]{article}",
        r"\pdfgentounicode=1",
        r"\input{glyphtounicode}",
        r"\usepackage[margin=0.8in]{geometry}" if _has_tex_package("geometry") else "",
        r"\title{" + _tex(paper.title) + "}",
        r"\author{" + r" \and ".join(_tex(a) for a in paper.authors) + "}",
        r"\date{Journal of Test Papers (" + str(paper.year) + r")\quad doi:" + _tex(paper.doi) + "}",
        r"\begin{document}",
        r"\maketitle",
        r"\section*{Abstract}",
        _tex(" ".join(paper.abstract)),
    ]
    for name, paragraphs in paper.sections:
        body.append(r"\section{" + name + "}")
        body += [_tex(" ".join(p)) + "\n" for p in paragraphs]
    body.append(r"\begin{thebibliography}{9}")
    body += [r"\bibitem{r" + str(i) + "} " + _tex(ref) for i, ref in enumerate(paper.references)]
    body += [r"\end{thebibliography}", r"\end{document}"]
    return "\n".join(line for line in body if line) + "\n"


def _has_tex_package(name: str) -> bool:
    try:
        found = subprocess.run(["kpsewhich", f"{name}.sty"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return bool(found.stdout.strip())


def write_latex(paper: SamplePaper, path: Path) -> Path | None:
    """Typeset `paper` with pdflatex into `path`; None when pdflatex is not installed or fails."""
    if not latex_available():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "paper.tex"
        source.write_text(latex_source(paper), encoding="utf-8")
        for _ in range(2):  # twice, as LaTeX wants for its references
            done = subprocess.run(
                ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
                cwd=tmp,
                capture_output=True,
                timeout=120,
                env={**os.environ, "TEXMFOUTPUT": tmp},
            )
            if done.returncode != 0:
                return None
        shutil.copy(Path(tmp) / "paper.pdf", path)
    return path


# ---------------------------------------------------------------------------------------------- Chromium
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-extensions",
    "--disable-dev-shm-usage",
)


def chromium_binary() -> str | None:
    return next(
        (found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))), None
    )


def html_source(paper: SamplePaper, *, columns: int = 2) -> str:
    """The paper as one HTML page: full-width title and authors, then the body in CSS columns. No <title>."""
    body = [f"<h2>Abstract</h2>\n<p>{escape(' '.join(paper.abstract))}</p>"]
    for number, (name, paragraphs) in enumerate(paper.sections, 1):
        body.append(f"<h2>{number} {escape(name)}</h2>")
        body += [f"<p>{escape(' '.join(p))}</p>" for p in paragraphs]
    body.append("<h2>References</h2>\n<ol>" + "".join(f"<li>{escape(ref)}</li>" for ref in paper.references) + "</ol>")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n<style>\n'
        "body { font-family: 'DejaVu Serif', serif; font-size: 10pt; line-height: 1.3; }\n"
        "h1 { font-size: 18pt; margin: 0 0 6pt; } .authors { font-size: 11pt; margin: 0 0 4pt; }\n"
        f".body {{ column-count: {columns}; column-gap: 18pt; text-align: justify; }}\n"
        "h2 { font-size: 12pt; margin: 8pt 0 4pt; } p { margin: 0 0 4pt; text-indent: 1em; } li { "
        "margin-bottom: 3pt; }\n"
        "</style></head><body>\n"
        f'<h1>{escape(paper.title)}</h1>\n<p class="authors">{escape(", ".join(paper.authors))}</p>\n'
        f'<p class="authors">Journal of Test Papers ({paper.year}) doi:{escape(paper.doi)}</p>\n'
        f'<div class="body">\n' + "\n".join(body) + "\n</div>\n</body></html>\n"
    )


def write_chromium(paper: SamplePaper, path: Path, *, columns: int = 2, html: str | None = None) -> Path | None:
    """Print `paper` (or the given `html`) to `path` with headless Chromium; None when Chromium is missing or fails."""
    binary = chromium_binary()
    if binary is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / f"{paper.key}.html"
        page.write_text(html if html is not None else html_source(paper, columns=columns), encoding="utf-8")
        out = Path(tmp) / "out.pdf"

        def command(attempt: int) -> list[str]:  # a fresh profile for each try
            return [
                binary,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={Path(tmp) / f'profile{attempt}'}",
                f"--print-to-pdf={out}",
                page.as_uri(),
            ]

        if not _run_twice(command, out, 120, tmp):
            return None
        shutil.copy(out, path)
    return path


# ---------------------------------------------------------------------------------------------- LibreOffice
def libreoffice_binary() -> str | None:
    return next((found for name in ("soffice", "libreoffice") if (found := shutil.which(name))), None)


_FODT_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.3"
 office:mimetype="application/vnd.oasis.opendocument.text">
<office:font-face-decls><style:font-face style:name="DejaVu Serif"
svg:font-family="'DejaVu Serif'"/></office:font-face-decls>
<office:styles>
 <style:default-style style:family="paragraph"><style:text-properties style:font-name="DejaVu Serif" fo:font-size="10pt"
 fo:language="en" fo:country="GB"/></style:default-style>
 <style:style style:name="Standard" style:family="paragraph"/>
 <style:style style:name="Text_20_body" style:display-name="Text body"
 style:family="paragraph"><style:paragraph-properties fo:text-align="justify" fo:text-indent="0.15in"
 fo:margin-bottom="0.04in"/><style:text-properties fo:hyphenate="true"/></style:style>
 <style:style style:name="Title" style:family="paragraph"><style:paragraph-properties
 fo:margin-bottom="0.1in"/><style:text-properties fo:font-size="18pt" fo:font-weight="bold"/></style:style>
 <style:style style:name="Authors" style:family="paragraph"><style:text-properties fo:font-size="11pt"/></style:style>
 <style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph"
 style:default-outline-level="1"><style:paragraph-properties fo:margin-top="0.1in"
 fo:margin-bottom="0.05in"/><style:text-properties fo:font-size="12pt" fo:font-weight="bold"/></style:style>
 <style:style style:name="Running" style:family="paragraph"><style:paragraph-properties
 fo:text-align="center"/><style:text-properties fo:font-size="8pt"/></style:style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="8.5in" fo:page-height="11in"
 fo:margin-top="0.6in" fo:margin-bottom="0.6in" fo:margin-left="0.75in" fo:margin-right="0.75in"/>
  <style:header-style><style:header-footer-properties fo:min-height="0.2in"
  fo:margin-bottom="0.15in"/></style:header-style>
  <style:footer-style><style:header-footer-properties fo:min-height="0.2in"
  fo:margin-top="0.15in"/></style:footer-style></style:page-layout>
 <style:style style:name="Sect1" style:family="section"><style:section-properties><style:columns fo:column-count="2"
 fo:column-gap="0.25in"/></style:section-properties></style:style>
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1">
 <style:header><text:p text:style-name="Running">{running}</text:p></style:header>
 <style:footer><text:p text:style-name="Running"><text:page-number
 text:select-page="current">1</text:page-number></text:p></style:footer>
</style:master-page></office:master-styles>
<office:body><office:text>
"""


def fodt_source(paper: SamplePaper) -> str:
    """The paper as a flat OpenDocument text: title block full width, the body in a two-column section."""
    out = [
        _FODT_HEAD.replace("{running}", escape(f"Journal of Test Papers {paper.year}")),
        f'<text:p text:style-name="Title">{escape(paper.title)}</text:p>',
        f'<text:p text:style-name="Authors">{escape(", ".join(paper.authors))}</text:p>',
        f'<text:p text:style-name="Authors">doi:{escape(paper.doi)}</text:p>',
        '<text:section text:style-name="Sect1" text:name="Body">',
        '<text:h text:style-name="Heading_20_1" text:outline-level="1">Abstract</text:h>',
        f'<text:p text:style-name="Text_20_body">{escape(" ".join(paper.abstract))}</text:p>',
    ]
    for number, (name, paragraphs) in enumerate(paper.sections, 1):
        out.append(f'<text:h text:style-name="Heading_20_1" text:outline-level="1">{number} {escape(name)}</text:h>')
        out += [f'<text:p text:style-name="Text_20_body">{escape(" ".join(p))}</text:p>' for p in paragraphs]
    out.append('<text:h text:style-name="Heading_20_1" text:outline-level="1">References</text:h>')
    out += [
        f'<text:p text:style-name="Standard">[{i}] {escape(ref)}</text:p>' for i, ref in enumerate(paper.references, 1)
    ]
    out.append("</text:section>\n</office:text></office:body></office:document>\n")
    return "\n".join(out)


_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _docx_paragraph(text: str, *, size: int = 20, bold: bool = False, indent: bool = False, section: str = "") -> str:
    props = ('<w:jc w:val="both"/>' if indent else "") + ('<w:ind w:firstLine="216"/>' if indent else "") + section
    run = (
        '<w:rPr><w:rFonts w:ascii="DejaVu Serif" w:hAnsi="DejaVu '
        f'Serif"/>{"<w:b/>" if bold else ""}<w:sz w:val="{size}"/></w:rPr>'
    )
    return (
        f'<w:p><w:pPr><w:spacing w:after="80"/>{props}</w:pPr><w:r>{run}<w:t '
        f'xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'
    )


def docx_bytes(paper: SamplePaper) -> bytes:
    """The paper as a minimal Word document: a one-column title block, then a continuous two-column section."""
    page = (
        '<w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1080" w:right="1080" w:bottom="1080" '
        'w:left="1080" w:header="500" w:footer="500" w:gutter="0"/>'
    )
    paragraphs = [
        _docx_paragraph(paper.title, size=36, bold=True),
        _docx_paragraph(", ".join(paper.authors), size=22),
        _docx_paragraph(f"doi:{paper.doi}", size=22, section=f'<w:sectPr>{page}<w:cols w:num="1"/></w:sectPr>'),
        _docx_paragraph("Abstract", size=24, bold=True),
        _docx_paragraph(" ".join(paper.abstract), indent=True),
    ]
    for number, (name, body) in enumerate(paper.sections, 1):
        paragraphs.append(_docx_paragraph(f"{number} {name}", size=24, bold=True))
        paragraphs += [_docx_paragraph(" ".join(p), indent=True) for p in body]
    paragraphs.append(_docx_paragraph("References", size=24, bold=True))
    paragraphs += [_docx_paragraph(f"[{i}] {ref}") for i, ref in enumerate(paper.references, 1)]
    document = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document {_W}><w:body>'
        + "".join(paragraphs)
        + f'<w:sectPr><w:type w:val="continuous"/>{page}<w:cols w:num="2" '
        'w:space="360"/></w:sectPr></w:body></w:document>'
    )
    types = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types '
        'xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    )
    rels = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships '
        'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" '
        'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
        'Target="word/document.xml"/>'
        "</Relationships>"
    )
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", types)
        archive.writestr("_rels/.rels", rels)
        archive.writestr("word/document.xml", document)
    return buffer.getvalue()


def write_libreoffice(paper: SamplePaper, path: Path, *, source: str = "fodt") -> Path | None:
    """Export `paper` written as `source` ("fodt" or "docx") to PDF with LibreOffice; None when it is missing or
    fails."""
    binary = libreoffice_binary()
    if binary is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        document = Path(tmp) / f"{paper.key}.{source}"
        if source == "docx":
            document.write_bytes(docx_bytes(paper))
        else:
            document.write_text(fodt_source(paper), encoding="utf-8")
        profile = (Path(tmp) / "profile").as_uri()  # a fresh profile: concurrent exports do not share a lock
        command = [
            binary,
            f"-env:UserInstallation={profile}",
            "--headless",
            "--norestore",
            "--convert-to",
            "pdf",
            "--outdir",
            tmp,
            str(document),
        ]
        out = document.with_suffix(".pdf")
        if not _run_twice(lambda _attempt: command, out, 180, tmp):
            return None
        shutil.copy(out, path)
    return path


def _run_twice(command: Callable[[int], list[str]], out: Path, timeout: int, home: str) -> bool:
    """Run a converter until it writes `out`, once more on a failure (a busy machine can make a browser's or an office
    suite's start fail); False when neither try wrote it."""
    for attempt in range(2):
        try:
            subprocess.run(command(attempt), capture_output=True, timeout=timeout, env={**os.environ, "HOME": home})
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.exists() and out.stat().st_size > 0:
            return True
    return False
