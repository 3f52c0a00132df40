"""Hypothesis profiles of the property tests: `fast` (the default: few examples, the same ones on every run, so the
fast loop stays quick and repeatable), `thorough` (many examples, the same ones on every run: tests/properties/
test_thorough.py runs every property under it as a slow test, so CI's verdict never depends on a draw) and `explore`
(as many, new on every run: what finds the next bug; a find becomes an @example). SPARKIT_HYPOTHESIS=NAME picks one
for a run by hand."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "fast",
    max_examples=30,
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    max_examples=200,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", settings.get_profile("explore"), derandomize=True)
settings.load_profile(os.environ.get("SPARKIT_HYPOTHESIS") or "fast")
