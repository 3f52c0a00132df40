"""Properties of the review's edits (agent/cli/review.py lines at the terminal, agent/review/ledger.py the JSON a
reviewer sends): a line is accepted exactly when its help text's grammar says so, and then gives the edit it names;
any other line, and any JSON review that does not fit the ledger, is a ReviewError of one line."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from agent.cli.review import HELP, parse_line
from agent.review.ledger import READINGS, ReviewError, ReviewPassage, parse_edits
from tests.fakes import record
from tests.properties.checks import result_or_typed_error

GRAMMAR = re.compile(
    r"\s*(?:(?P<strike>strike)(?P<struck>(?:\s+\S+)+)|(?P<read>read)\s+(?P<passage>\S+)\s+(?P<reading>support|against|"
    r"unrelated)|(?P<add>add)\s+(?P<record>\S+)|(?P<done>done))?\s*",
    re.IGNORECASE,
)
"""The grammar HELP states, keywords in any case (test_help_states_the_grammar pins HELP to it)."""

ID = st.text(alphabet=st.characters(blacklist_categories=["Z", "C"]), min_size=1, max_size=12)
SPACE = st.text(alphabet=" \t", min_size=1, max_size=3)
KEYWORD = st.sampled_from(["strike", "read", "add", "done", "STRIKE", "Read", "ADD", "Done", *READINGS])


def test_help_states_the_grammar():
    assert HELP == "strike P [P ...] | read P support|against|unrelated | add RECORD_ID | done (or an empty line)"


@given(line=st.lists(KEYWORD | ID | SPACE, max_size=6).map("".join) | st.text(max_size=40))
@example(line="strike")
@example(line="read p1 against extra")
@example(line="done now")
@example(line="add a b")
def test_a_line_is_accepted_exactly_when_the_grammar_says(line):
    edits: dict = {}
    match = GRAMMAR.fullmatch(line)
    try:
        going_on = parse_line(line, edits)
    except ReviewError as exc:
        assert "\n" not in str(exc) and HELP in str(exc)
        assert match is None, f"{line!r} fits the help's grammar but was refused"
        return
    assert match is not None, f"{line!r} was accepted, but the help's grammar has no such line"
    if match["strike"]:
        assert going_on and edits == {"strike": match["struck"].split()}
    elif match["read"]:
        assert going_on and edits == {"read": {match["passage"]: match["reading"].lower()}}
    elif match["add"]:
        assert going_on and edits == {"add": [match["record"]]}
    else:
        assert not going_on and edits == {}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
PASSAGES = [ReviewPassage(f"p{i}", "A statement", f"r{i}", 0, 1, "text", "SUPPORT", 0.5, False) for i in (1, 2, 3)]
POOL = {f"r{i}": record(f"r{i}", "title", "sentence") for i in (1, 2, 3, 4)}
review_keys = st.sampled_from(["strike", "read", "add", "approve"]) | st.text(max_size=6)
review_values = json_values | st.sampled_from(["p1", "p2", "p9", "r4", ["p1"], ["r4"], {"p2": "against"}, True])


@given(value=json_values | st.dictionaries(review_keys, review_values, max_size=3))
@example(value={"read": {"p1": ["support"]}})
@example(value={"read": ["p1"]})
@example(value={"read": {"p1": "support"}, "strike": ["p1"]})
def test_any_review_fits_the_ledger_or_is_refused_in_one_line(value):
    edits = result_or_typed_error(lambda: parse_edits(value, PASSAGES, POOL), ReviewError)
    if edits is not None:
        assert set(edits.strike) | set(edits.read) <= {"p1", "p2", "p3"} and set(edits.add) <= set(POOL)
        assert not set(edits.strike) & set(edits.read)
