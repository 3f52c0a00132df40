"""A damaged trace file or trace index is reported with the line that is wrong, never half-read."""

from __future__ import annotations

import pytest

from agent.errors import InputError
from agent.tracing.store import INDEX_NAME, list_traces, load_trace, traces_dir


def test_corrupt_trace_line_is_named():
    traces_dir().mkdir(parents=True)
    (traces_dir() / "run1.jsonl").write_text('{"kind": "meta"}\n\n{"kind": "node"\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"trace .*run1\.jsonl is corrupt at line 3"):
        load_trace("run1")


def test_blank_lines_are_skipped_and_corrupt_index_line_is_named():
    traces_dir().mkdir(parents=True)
    (traces_dir() / "run1.jsonl").write_text('{"kind": "meta"}\n\n{"kind": "node"}\n', encoding="utf-8")
    assert load_trace("run1") == [{"kind": "meta"}, {"kind": "node"}]
    index = traces_dir() / INDEX_NAME
    index.write_text('{"run_id": "run1", "started_at": "1"}\n\n', encoding="utf-8")
    assert [e["run_id"] for e in list_traces()] == ["run1"]
    index.write_text('{"run_id": "run1", "started_at": "1"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"trace index .* is corrupt at line 2"):
        list_traces()
