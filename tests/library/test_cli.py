"""`sparkit library ...` at the command line: one line per skipped file, exit codes, safe terminal output, progress."""

from __future__ import annotations

import json
import shutil

from agent.cli import main
from agent.common.terminal import Progress, terminal_safe


def test_add_list_stats_remove(tmp_path, pdfs, papers, encoder, capsys):
    folder = tmp_path / "papers"
    folder.mkdir()
    shutil.copy(pdfs["okafor2010"], folder)
    (folder / "refs.bib").write_text(papers[0].bibtex() + papers[2].bibtex())
    (folder / "broken.pdf").write_bytes(b"<html>not a pdf</html>")
    assert main(["library", "add", str(folder), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err.strip().splitlines() == [f"skipped {folder / 'broken.pdf'}: not a PDF (no %PDF header)"]
    assert (
        out.startswith("added 2 document(s), updated 0, 0 already in the library, 1 skipped;")
        and "the library has 2 document(s)" in out
    )
    assert main(["library", "list"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert (
        [line.split()[0] for line in listing] == ["okafor2010", "moreau2012"]
        and "2 p," in listing[0]
        and "abstract" in listing[1]
    )
    assert main(["library", "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["documents"] == 2 and stats["full_text"] == 1 and stats["by_kind"] == {"bibtex": 2}
    assert main(["library", "remove", "nope"]) == 2
    assert capsys.readouterr().err.strip() == "sparkit: error: not in the library: nope"
    assert main(["library", "remove", "moreau2012"]) == 0
    assert "removed 1 document(s): moreau2012" in capsys.readouterr().out


def test_add_with_only_bad_inputs_exits_2(tmp_path, encoder, capsys):
    (tmp_path / "a.pdf").write_bytes(b"")
    assert main(["library", "add", str(tmp_path / "a.pdf"), str(tmp_path / "missing.bib"), "--json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert [s["reason"] for s in report["skipped"]] == ["no such file or folder", "empty file"]


def test_titles_from_data_cannot_drive_the_terminal(tmp_path, encoder, capsys):
    (tmp_path / "evil.bib").write_text(
        "@article{evil, title = {Normal title \x1b[2J\x1b]0;pwned\x07 \u202eend}, year = {2020}}\n"
    )
    assert main(["library", "add", str(tmp_path / "evil.bib"), "-q"]) == 0
    capsys.readouterr()
    assert main(["library", "list"]) == 0
    out = capsys.readouterr().out
    assert "evil" in out and "Normal title" in out and not any(ch in out for ch in ("\x1b", "\x07", "\u202e"))
    assert terminal_safe("a\x1b[31mred\x1b[0m\tb\nc") == "ared b c"


def test_progress_bars_only_when_asked_or_on_a_terminal(tmp_path, pdfs, encoder, capsys, monkeypatch):
    monkeypatch.delenv("SPARKIT_PROGRESS", raising=False)  # the user's own setting would decide instead of the terminal
    assert main(["library", "add", str(pdfs["okafor2010"])]) == 0
    assert "reading" not in capsys.readouterr().err  # stderr is not a terminal here
    assert main(["library", "add", str(pdfs["lindqvist2011"]), "--progress"]) == 0
    err = capsys.readouterr().err
    assert "reading   [" in err and "1/1 lindqvist2011.pdf" in err and "indexing: " in err

    class Tty:
        def __init__(self):
            self.text = ""

        def isatty(self):
            return True

        def write(self, text):
            self.text += text

        def flush(self):
            pass

    stream = Tty()
    with Progress(stream=stream).task("parsing", 2) as bar:
        bar.advance(detail="a\x1b[31m.pdf")
        bar.advance(detail="b.pdf")
    assert "2/2 b.pdf" in stream.text and "\x1b" not in stream.text
