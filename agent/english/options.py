"""A multiple-choice option as a statement to check: the option written into its stem ('Which drug ...?' + 'aspirin'
-> 'Aspirin ...')."""

from __future__ import annotations

import re

from agent.common.text import content_terms
from agent.english.questions import alternative_statements
from agent.english.words import agreeing_verb
from agent.english.words import is_verb_form as _is_verb_form

# Words of a stem that only asks which option is right ("Which statement does the evidence support?").
_META_STEM_TERMS = frozenset(
    """which following statement statements claim claims option options answer answers true correct best most
    accurate accurately supported support supports evidence published literature research studies describes
    describe consistent current""".split()
)


def option_statement(stem: str, option: str, others: tuple[str, ...] = ()) -> str:
    """What an MCQ option asserts: the option alone when the stem only asks which option holds; the stem answered
    by the option when it asks "which / what ..." ("Which drug lowers LDL?" + "statins" -> "Statins lower LDL");
    else 'stem: option'.

    A short option ('100 °C') needs its stem to mean anything; a full statement under a meta stem ("Which
    statement does the published evidence support?") does not, and the stem's words would only blur the
    embedding and the stance judge's reading of the option. The judge was trained on declarative claims, so the
    stem is answered rather than quoted; between two options a comparison names the other ("Varenicline is more
    effective than nicotine patch for smoking cessation"), which is what the evidence must separate.
    """
    if option.strip() in (alternative_statements(stem) or ()):
        return option.strip()  # an alternative question's statement is whole already
    stem, option = stem.strip().rstrip("?").strip(), option.strip()
    if not stem or all(term in _META_STEM_TERMS for term in content_terms(stem)):
        return option
    return answered_stem(stem, option, others) or f"{stem}: {option}"


# "Which is more effective ...", "What drug was approved ...", "Which gene causes ...": the wh-word (and its nouns)
# is the subject the option replaces. "What is the X?" is answered the other way round: "The X is <option>".
_WH_COPULA = re.compile(
    r"^(?:which|what)\s+(?:(?P<noun>[\w-]+(?:\s+[\w-]+)?)\s+)?(?P<verb>is|are|was|were)\s+(?P<rest>\S.*)$", re.I | re.S
)
_COMPARATIVES = frozenset(
    """better worse higher lower greater larger smaller safer faster slower stronger weaker longer shorter earlier later
    cheaper riskier likelier commoner fewer""".split()
)


def answered_stem(stem: str, option: str, others: tuple[str, ...] = ()) -> str | None:
    """The declarative a wh-stem makes with `option` as its answer, or None when the stem is not of that shape."""
    match = _WH_COPULA.match(stem)
    asks_what_the_x_is = match and match.group("noun") is None and stem.lower().startswith("what")
    if match is not None and asks_what_the_x_is and match.group("rest").lower().startswith(("the ", "a ", "an ")):
        rest = match.group("rest")
        return f"{rest[:1].upper()}{rest[1:]} {agreeing_verb(rest, match.group('verb'))} {option}"
    if match is not None:
        verb, rest = match.group("verb"), match.group("rest").split()
    else:
        words = stem.split()
        # right after the wh-word only a word that can be nothing but a verb ("which results show" is not "X shows");
        # of two in a row the second ("Which of the following drugs causes ...": "drugs" is a noun here)
        candidates = [k for k in range(1, min(6, len(words) - 1)) if _is_verb_form(words[k], strict=k == 1)]
        at = next((k for k in candidates if k + 1 not in candidates), None)
        if words[0].lower() not in ("which", "what") or at is None:
            return None
        verb, rest = words[at], words[at + 1 :]
    subject = option[:1].upper() + option[1:]
    predicate = _compared(rest, others[0]) if len(others) == 1 else " ".join(rest)
    return f"{subject} {agreeing_verb(option, verb.lower())} {predicate}"


def _compared(words: list[str], other: str) -> str:
    """'more effective for X' -> 'more effective than <other> for X', 'prevents adenomas better' -> 'prevents
    adenomas better than <other>'; no comparative: the words unchanged."""
    if len(words) >= 2 and words[0].lower() in ("more", "less"):
        return " ".join([*words[:2], "than", other, *words[2:]])
    if words and words[0].lower() in _COMPARATIVES:
        return " ".join([words[0], "than", other, *words[1:]])
    if words and words[-1].lower() in _COMPARATIVES | {"more", "less"}:
        return " ".join([*words, "than", other])
    return " ".join(words)
