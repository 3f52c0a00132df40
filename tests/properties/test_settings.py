"""Properties of `--set NAME=VALUE` (agent/cli/run.py) and the settings it feeds (agent/config.py, agent/api/): any
items give overrides or an InputError of one line; a value written as JSON comes back as that value; any overrides give
a Context or an InputError of one line, and a Context's explicit settings validate back to the same Context."""

from __future__ import annotations

import json

from hypothesis import example, given
from hypothesis import strategies as st

from agent.api import make_context
from agent.cli.run import _parse_set
from agent.config import FLAT_NAMES, GROUPS
from agent.errors import InputError
from tests.properties.checks import result_or_typed_error

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
names = (
    st.sampled_from(sorted(FLAT_NAMES))
    | st.sampled_from([f"{group}.{name}" for name, group in sorted(FLAT_NAMES.items())])
    | st.sampled_from([*GROUPS, "preset", "backend", "backend.name", "backend.llm"])
    | st.text(max_size=20)
)


@given(items=st.lists(st.text(max_size=40), max_size=5))
@example(items=["max_claims"])
def test_any_set_items_give_overrides_or_one_line(items):
    found = result_or_typed_error(lambda: _parse_set(items), InputError)
    if found is not None:
        assert all("=" in item for item in items) and len(found) <= len(items)


@given(name=st.text(max_size=20).filter(lambda n: "=" not in n), value=json_values)
def test_a_json_value_comes_back_as_written(name, value):
    assert _parse_set([f"{name}={json.dumps(value)}"]) == {name.strip(): value}


@given(overrides=st.dictionaries(names, json_values | st.text(max_size=12), max_size=4))
@example(overrides={"preset": ["fast"]})
@example(overrides={"verification": 3})
@example(overrides={"max_claims": "3x"})
@example(overrides={"\n": ""})  # a key of control characters: the error names it on one line (repr)
def test_any_overrides_give_a_context_or_one_line(overrides):
    context = result_or_typed_error(lambda: make_context(overrides), InputError)
    if context is not None:
        again = make_context(context.explicit())
        assert again.model_dump() == context.model_dump() and again.explicit() == context.explicit()
