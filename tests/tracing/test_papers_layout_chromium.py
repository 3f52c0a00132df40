"""The trace page's paper table lays out as the terminal's, in a real browser at a desktop and a phone width.

Seen at 1300 px: with 12 papers, a ~120-word supporting paragraph sat inside the narrow "answer" column (~70 px),
one row was a column of single words a screen high, and the title column was pushed off to the right behind a
horizontal scroll bar. Here headless Chromium renders `sparkit trace html`'s page of a run given twelve papers, one of
them with such a paragraph, at 1280 and 390 px, takes a screenshot of each, and measures the rendered table: the
page does not scroll sideways, the answer cell is one or two lines, each paper's line (answer, design, sample size,
record, title) is a few lines at most, and the deciding sentence is a row of its own across the table.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
from html import escape

import pytest

from agent.records import PaperFinding
from agent.tracing.render_html import render_html
from agent.tracing.view import load_view
from tests.tracing.helpers import traced_run
from tests.tracing.test_html_chromium import CHROMIUM, dump_dom

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install -y chromium); CI installs it"
)

PARAGRAPH = " ".join(
    ["Among older patients with type 2 diabetes, a history of severe hypoglycemic episodes was associated with a"]
    + ["greater risk of dementia in the fully adjusted models of this longitudinal cohort study"] * 7
)  # about 120 words, as the paragraph seen
DESIGNS = ["cohort", "cross-sectional", "RCT", "meta-analysis", "narrative review", "animal"]

PROBE = """
<script>
(function () {
  var table = document.querySelector('#papers table');
  var root = document.documentElement;
  var lines = function (el) {
    var h = parseFloat(getComputedStyle(el).lineHeight) || 20;
    return el.getBoundingClientRect().height / h;
  };
  var all = Array.prototype.slice.call(table.querySelectorAll('tbody tr'));
  var papers = all.filter(function (tr) { return tr.cells.length === 5; });
  var rows = papers.map(function (tr) {
    var answer = document.createRange(), title = tr.cells[4];
    answer.selectNodeContents(tr.cells[0]);
    var h = parseFloat(getComputedStyle(tr).lineHeight) || 20;
    return {answerLines: answer.getBoundingClientRect().height / h, rowLines: lines(tr),
            titleRight: title.getBoundingClientRect().right};
  });
  var quotes = all.filter(function (tr) { return tr.cells.length === 1; }).map(function (tr) {
    return tr.cells[0].getBoundingClientRect().width / table.getBoundingClientRect().width;
  });
  var out = document.createElement('pre');
  out.id = 'probe-result';
  out.textContent = JSON.stringify({
    viewport: window.innerWidth, scrollWidth: root.scrollWidth, clientWidth: root.clientWidth,
    tableRight: table.getBoundingClientRect().right, rows: rows, quotes: quotes});
  document.body.appendChild(out);
})();
</script>
"""


def twelve_papers() -> list[dict]:
    papers = [
        PaperFinding(
            record_id=f"{13282296 + i}",
            title=f"Hypoglycemic episodes and the risk of dementia in older patients, study {i} of a long series",
            year=2009 + i % 5,
            answer="supports" if i == 0 else ("contradicts" if i == 5 else "silent"),
            answer_sentence=PARAGRAPH
            if i == 0
            else ("Hypoglycemia was not associated with dementia." if i == 5 else None),
            design=DESIGNS[i % len(DESIGNS)],  # type: ignore[arg-type]
            design_sentence="A longitudinal cohort study.",
            sample_size=16667 - 1000 * i if i % 4 else None,
        )
        for i in range(12)
    ]
    return [p.model_dump() for p in papers]


def page_of_twelve(tmp_path) -> str:
    answer, _ = traced_run()
    view = load_view(answer.run_id)
    assert view.answer is not None
    view.answer["papers"] = twelve_papers()
    return render_html(view)


def png_size(path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", header[16:24])


def framed(page: str, width: int, height: int) -> str:
    """The page in an iframe `width` px wide: headless Chromium's window is at least 500 px wide, so a phone's 390 px
    is the frame's. The frame's document is the page's own origin (srcdoc); its probe result is copied out once it
    has loaded, for --dump-dom to print."""
    return (
        "<!DOCTYPE html><html><head><style>body{margin:0}iframe{border:0;display:block}</style></head><body>"
        f'<iframe id="page" width="{width}" height="{height}" srcdoc="{escape(page, quote=True)}" onload="'
        "var r=this.contentDocument.getElementById('probe-result');if(r){var o=document.createElement('pre');"
        "o.id='probe-result';o.textContent=r.textContent;document.body.appendChild(o);}"
        '"></iframe></body></html>'
    )


def screenshot(page_uri: str, width: int, out, tmp_path) -> None:
    args = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'chromium-shot'}",
        f"--window-size={max(width, 500)},2400",
        f"--screenshot={out}",
        page_uri,
    ]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and out.exists(), done.stderr[-2000:]


@pytest.mark.parametrize("width", [1280, 390])
def test_the_paper_table_lays_out_as_the_terminals_at_desktop_and_phone_width(tmp_path, width):
    html = page_of_twelve(tmp_path)
    page = tmp_path / "trace.html"
    page.write_text(framed(html, width, 2400), encoding="utf-8")
    shot = tmp_path / f"papers-{width}.png"
    screenshot(page.as_uri(), width, shot, tmp_path)
    assert png_size(shot)[0] == max(width, 500)

    probed = tmp_path / "probed.html"
    probed.write_text(framed(html.replace("</body>", PROBE + "</body>"), width, 900), encoding="utf-8")
    dom = dump_dom(probed.as_uri(), tmp_path, window=f"{max(width, 500)},900")
    match = re.search(r'<pre id="probe-result">(.*?)</pre>', dom, re.S)
    assert match, "the probe script did not run"
    result = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert result["viewport"] == width
    assert result["scrollWidth"] <= result["clientWidth"], "the page scrolls sideways"
    assert result["tableRight"] <= width
    assert len(result["rows"]) == 12
    for row in result["rows"]:
        assert row["answerLines"] <= 2.2, row  # the answer badge, not a paragraph
        assert row["titleRight"] <= width, row  # the title on the page, not off to the right
        assert row["rowLines"] <= (3.2 if width >= 1000 else 6.5), row  # a line, not a screen-high column of words
    assert len(result["quotes"]) == 2 and all(share > 0.9 for share in result["quotes"])  # across the row
