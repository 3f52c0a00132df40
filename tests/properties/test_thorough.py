"""Every property of tests/properties again under the `thorough` profile (conftest.py): many examples, where the fast
loop sends a few (the same on every run, so CI's verdict is repeatable; SPARKIT_HYPOTHESIS=explore draws new ones).
A slow test, as it takes a minute or two."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_every_property_holds_on_many_new_examples():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(HERE), "-m", "not slow", "-p", "no:cacheprovider", "-q", "-x"],
        env={**os.environ, "SPARKIT_HYPOTHESIS": "thorough"},
        cwd=HERE.parents[1],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
