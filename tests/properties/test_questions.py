"""Properties of the question parsers (agent/inputs.py, agent/english/options.py): any question and options give a
clean question or an InputError of one line; options written into a question in any of the accepted styles come back
out as they were written; an option read as a statement never fails."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from agent.english.options import option_statement
from agent.errors import InputError
from agent.inputs import MAX_QUESTION_CHARS, inline_options, validate_mode, validate_question
from tests.properties.checks import result_or_typed_error

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
texts = st.text(max_size=300) | st.text(alphabet=st.characters(codec="utf-8"), max_size=60) | st.just("\ud800 x")
options_values = st.none() | st.lists(st.text(max_size=30), max_size=28) | json_values


@given(question=texts | json_values, options=options_values, mode=st.sampled_from(["ask", "verify"]))
@example(question="Which? (A) x (B) y", options=None, mode="ask")
@example(question="\ud800 is it?", options=None, mode="ask")
def test_any_question_is_clean_or_refused_in_one_line(question, options, mode):
    found = result_or_typed_error(lambda: validate_question(question, options, mode), InputError)
    if found is not None:
        text, chosen = found
        assert text and text == " ".join(text.split()) and len(text) <= MAX_QUESTION_CHARS
        assert not re.search(r"[\x00-\x1f\x7f]", text)
        assert text.encode("utf-8") and all(o.encode("utf-8") for o in chosen)  # valid Unicode: no lone surrogate
        assert isinstance(chosen, list) and all(isinstance(o, str) and o for o in chosen)
        assert len(chosen) == 0 or 2 <= len(chosen) <= 26
        assert len({o.lower() for o in chosen}) == len(chosen)


@given(mode=json_values)
def test_any_mode_is_known_or_refused(mode):
    assert result_or_typed_error(lambda: validate_mode(mode), InputError) in (None, "ask", "verify")


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9).filter(lambda w: w not in ("or", "and"))
STYLES = ["({})", "[{}]", "{})", "{}.", "{}:"]


@given(
    stem=st.lists(words, min_size=1, max_size=6).map(lambda ws: "Which " + " ".join(ws) + "?"),
    options=st.lists(st.lists(words, min_size=1, max_size=3).map(" ".join), min_size=2, max_size=6, unique=True),
    style=st.sampled_from(STYLES),
    lower=st.booleans(),
    joiner=st.sampled_from([" ", ", ", " or ", "; "]),
)
@example(
    stem="Which is more effective?", options=["varenicline", "nicotine patch"], style="({})", lower=False, joiner=" or "
)
def test_options_written_into_a_question_come_back_out(stem, options, style, lower, joiner):
    letters = "abcdefghijklmnopqrstuvwxyz" if lower else "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    listed = joiner.join(f"{style.format(letters[i])} {option}" for i, option in enumerate(options))
    assert inline_options(f"{stem} {listed}") == (stem, options)


@given(stem=st.text(max_size=200), option=st.text(max_size=80), others=st.lists(st.text(max_size=40), max_size=3))
@example(stem="Which of the following", option="", others=[])
def test_any_option_reads_as_a_statement(stem, option, others):
    assert isinstance(option_statement(stem, option, tuple(others)), str)
