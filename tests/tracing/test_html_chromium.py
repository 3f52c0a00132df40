"""The exported page renders in a real browser: the run tree shows the graph's nodes and a node expands.

Drives headless Chromium (`/usr/bin/chromium`, Debian package `chromium`) with --dump-dom after a small
script, appended to the page, clicks a node's summary and measures its body before and after.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from agent.tracing.render_html import render_html
from agent.tracing.view import load_view
from tests.tracing.helpers import traced_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install -y chromium); CI installs it"
)

PROBE = """
<script>
(function () {
  var court = document.querySelector('details.run[data-node="court"]');
  var body = court.querySelector(':scope > .runbody');
  function state() {
    return {open: court.open, height: court.getBoundingClientRect().height, bodyVisible: body.checkVisibility()};
  }
  var before = state();
  court.querySelector(':scope > summary').click();
  var after = state();
  var nodes = Array.prototype.map.call(
    document.querySelectorAll('details.run[data-node] > summary > b.name'), function (b) { return b.textContent; });
  var result = {before: before, after: after, nodes: nodes, rootOpen: document.querySelector('details.run').open};
  var out = document.createElement('pre');
  out.id = 'probe-result';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
})();
</script>
"""


def dump_dom(page: str, tmp_path, window: str | None = None) -> str:
    """The DOM after the page's scripts ran; `window` ('1280,900') sets the window's size."""
    args = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        *([f"--window-size={window}"] if window else []),
        "--dump-dom",
        page,
    ]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_run_tree_renders_and_a_node_expands_in_chromium(tmp_path):
    answer, _ = traced_run()
    html = render_html(load_view(answer.run_id)).replace("</body>", PROBE + "</body>")
    page = tmp_path / "trace.html"
    page.write_text(html, encoding="utf-8")
    dom = dump_dom(page.as_uri(), tmp_path)
    match = re.search(r'<pre id="probe-result">(.*?)</pre>', dom, re.S)
    assert match, "the probe script did not run"
    result = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert {"retrieve", "hypothesize", "court", "verify_claims"} <= set(result["nodes"])
    assert result["rootOpen"] is True
    before, after = result["before"], result["after"]
    assert before["open"] is False and before["bodyVisible"] is False
    assert after["open"] is True and after["bodyVisible"] is True
    assert after["height"] > before["height"] + 10, "clicking the node's summary did not expand it"
    # what the browser built: the citations point at record sections on the page
    for citation in answer.citations:
        assert f'href="#rec-{citation.id}"' in dom and f'id="rec-{citation.id}"' in dom


EXPAND_ALL = """
<script>
(function () {
  document.querySelector('button[onclick="setAll(true)"]').click();
  var closed = Array.prototype.filter.call(document.querySelectorAll('details'),
                                           function (d) { return !d.open; }).length;
  var marks = document.querySelectorAll('article.record mark').length;
  var out = document.createElement('pre');
  out.id = 'probe-result';
  out.textContent = JSON.stringify({closed: closed, total: document.querySelectorAll('details').length, marks: marks});
  document.body.appendChild(out);
})();
</script>
"""


def test_expand_all_opens_everything_and_cited_passages_are_marked_in_chromium(tmp_path):
    answer, _ = traced_run()
    page = tmp_path / "trace.html"
    page.write_text(render_html(load_view(answer.run_id)).replace("</body>", EXPAND_ALL + "</body>"), encoding="utf-8")
    dom = dump_dom(page.as_uri(), tmp_path)
    match = re.search(r'<pre id="probe-result">(.*?)</pre>', dom, re.S)
    assert match, "the probe script did not run"
    result = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert result["total"] > 10 and result["closed"] == 0  # inputs and outputs too, not only the run tree
    assert result["marks"] >= 1  # the passages the run judged, highlighted in the cited abstracts
