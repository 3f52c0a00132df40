"""Every recorded fixture in ../shared/fixtures is replayed by at least one test in this folder."""

from __future__ import annotations

import re
from pathlib import Path

from tests.tools.helpers import FIXTURES

_REFERENCE = re.compile(r"[\"']([a-z_]+/[^\"'\s]+\.(?:json|xml|txt|html))[\"']")


def test_every_fixture_is_used_by_a_test():
    on_disk = {
        p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.is_file() and p.name != "SOURCES.md"
    }
    referenced: set[str] = set()
    for test_file in Path(__file__).parent.glob("test_*.py"):
        referenced |= set(_REFERENCE.findall(test_file.read_text(encoding="utf-8")))
    assert on_disk, f"no fixtures found under {FIXTURES}"
    assert sorted(on_disk - referenced) == [], "fixtures not replayed by any test"
    assert sorted(referenced - on_disk) == [], "tests name fixtures that do not exist"
