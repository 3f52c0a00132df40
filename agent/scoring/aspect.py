"""Does a record speak of a statement's subject and its object at all?

A passage can share a claim's subject and verb and be about something else: "Metformin reduces stroke incidence"
is no evidence that metformin reduces cancer incidence, and a colorectal-cancer abstract's "associated with 50% lower
risk" says nothing about fractures; the stance judge reads both as support (seen in the offline demo). So the court
lets a record take a side on a statement only when its title or abstract names the statement's subject and its
object (`court.aspect_scope` 'passage', opt-in, asks it of the judged passage with its record's title; measured in
evals/HISTORY.md, stop 34): at least one content word of each side of the statement's finite verb (5-letter
prefixes, so "fractures" meets "fracture"), words of relation, measure, population and judgement ("risk",
"increases", "associated", "adults", "safe", ...) left out because most abstracts have them. Where the grammar finds no
finite verb, or a side has no content word left, nothing is checked.

Which statement is checked depends on the hypothesis: a claim and its negation, the claim; a short MCQ option under
its stem ("Which drug increases insulin sensitivity?" answered "Metformin increases insulin sensitivity"), the
option's own words as the subject, every one of them (the option named whole), and the stem's other words as the object.
Not checked: options that are whole statements (they compete on the same evidence, and a check that drops a record for
one paraphrase and keeps it for the other decides between them on wording: on the SciFact two-option questions it cost 3
of 92 answers), and an open question's hypotheses (sentences of the retrieved records themselves).

The test is lexical on purpose: it only removes a side, never adds one, and a synonym it cannot see ("chicken" for
"Galliformes") costs a gold record; measured in evals/HISTORY.md ("Aspect check").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from agent.common.text import content_terms
from agent.english.grammar import finite_verb
from agent.english.lexicon import DOWN, HEDGES, NEGATIONS, UP
from agent.literature import Record
from agent.records import Hypothesis

PREFIX = 5

# Who or what a finding is about: words most abstracts have, yet beside a topic word they say where a claim holds
# ('in *human* embryos', 'in *older* smokers').
POPULATION_WORDS = frozenset(
    """patients subjects individuals people humans human cells cell mice mouse rats rat adults adult children child
    women men older elderly young participants population cohort""".split()
)
# Words that state a relation, a measure, a population or a judgement ("is safe", "is worth the effort": PubMedQA's
# questions) rather than name the thing studied: most abstracts have some, and a judgement is what the study decides.
RELATION_WORDS = (
    UP
    | DOWN
    | NEGATIONS
    | HEDGES
    | POPULATION_WORDS
    | frozenset(
        """risk risks level levels rate rates ratio amount amounts concentration concentrations number numbers high low
    associated association associations correlated correlation linked related relationship effect effects effective
    efficacy role roles impact influence influences important importance significant significantly significance
    change changes changed alter alters altered affect affects affected regulate regulates regulated mediate
    mediates mediated required requires essential necessary involved contribute contributes result results cause
    causes caused lead leads led used use using compared than model models outcome outcomes response responses
    expression activity function functions treatment therapy incidence prevalence frequency occurrence severity
    duration likelihood probability odds safe safety possible feasible feasibility useful usefulness worthwhile
    worth effort needed need advantage advantages advantageous beneficial benefit benefits appropriate accurate
    accuracy reliable valid difference making always really reasonable justified improvement room better worse good
    poor adequate sufficient successful success helpful value valuable predictive predictor""".split()
    )
)


@dataclass(frozen=True)
class Aspects:
    """A statement's content words on each side of its finite verb, as prefixes; empty when not checkable."""

    subject: frozenset[str]
    object: frozenset[str]
    whole_subject: bool = False
    """Every subject word must be named, not one: an MCQ option is named whole ("proton pump inhibitors" is not named by
    a record on LDL that says "inhibits": "Proton pump inhibitors" was SUPPORTED by it, issue 39)."""

    @property
    def checkable(self) -> bool:
        return bool(self.subject and self.object)


NOT_CHECKED = Aspects(frozenset(), frozenset())


# Greek letters spelled out, on both sides: a record's "TNF-α" names a question's "TNF-alpha" and the other way round.
GREEK = str.maketrans(
    {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "κ": "kappa", "ε": "epsilon", "λ": "lambda"}
)


# British and American spellings meet: "anaemia" / "anemia", "ischaemic" / "ischemic", "oestrogen" / "estrogen",
# "tumour" / "tumor" (seen: "The records it rests on do not mention anemia" under an answer quoting "anaemia").
_SPELLING = re.compile(r"ae|oe|(?<=[a-z]{2})our")


def _spelled(term: str) -> str:
    return _SPELLING.sub(lambda m: "e" if m.group() in ("ae", "oe") else "or", term)


def _prefixes(text: str, drop: frozenset[str] = frozenset()) -> frozenset[str]:
    return frozenset(_spelled(term)[:PREFIX] for term in content_terms(text.translate(GREEK)) if term not in drop)


@lru_cache(maxsize=4096)
def aspects_of(statement: str) -> Aspects:
    """Subject words before the finite verb, object words after it (relation words left out of both)."""
    verb = finite_verb(statement)
    if verb is None:
        return NOT_CHECKED
    words = statement.split()
    before, after = " ".join(words[: verb[0]]), " ".join(words[verb[0] + 1 :])
    return Aspects(_prefixes(before, RELATION_WORDS), _prefixes(after, RELATION_WORDS))


# Statistics and units: words every results sentence has ("HR 1.94 (95% CI 1.42-2.64)", "2.39% per year"). A claim
# whose object is only these names nothing a record must share to be about it (seen: a dementia claim "verified" by a
# paper on children with type 1 diabetes naming "hypoglycemic episodes", "years" and "95% CI", never dementia).
_STATISTIC_PREFIXES = frozenset(
    term[:PREFIX]
    for term in (
        "ci hr hrs or ors rr rrs irr aor ahr p sd se iqr odds ratio ratios hazard confidence mean per year years"
        " month months week weeks day days hour hours"
    ).split()
)


def topical(aspects: Aspects) -> Aspects:
    """The aspects without numbers and statistics (_STATISTIC_PREFIXES): what a record must name to be about them."""

    def keep(side: frozenset[str]) -> frozenset[str]:
        return frozenset(w for w in side if w not in _STATISTIC_PREFIXES and not any(c.isdigit() for c in w))

    return Aspects(keep(aspects.subject), keep(aspects.object))


def aspects_of_hypothesis(hypothesis: Hypothesis) -> Aspects:
    """The aspects a record must name to take a side on this hypothesis (module docstring)."""
    if hypothesis.origin in ("claim", "negation"):
        return aspects_of(hypothesis.statement)
    if hypothesis.origin == "option" and hypothesis.statement != hypothesis.text:
        # the stem's words, wherever the option sits: "Metformin increases insulin sensitivity", "The boiling point
        # of water is 100 °C", "What causes scurvy: vitamin C deficiency"
        option = _prefixes(hypothesis.text, RELATION_WORDS)
        whole = aspects_of(hypothesis.statement)
        return Aspects(option, (whole.subject | whole.object) - option or option, whole_subject=True)
    return NOT_CHECKED


def record_addresses(aspects: Aspects, record: Record) -> bool:
    """True when the record's title or abstract names a subject word and an object word, or when the aspects cannot
    be checked."""
    return _names_both(aspects, _words_of(record.text))


def passage_addresses(aspects: Aspects, passage: str, record: Record) -> bool:
    """True when the passage, read with its record's title, names a subject word and an object word (or the aspects
    cannot be checked). An abstract can name a claim's outcome in one sentence and report another outcome in the
    next: "... statin use was associated with significantly improved survival and large reductions in the risk of
    major cardiovascular events" says nothing of type 2 diabetes, though its abstract lists diabetes among the risk
    factors. The title stands in for what a sentence leaves implicit ("This reduced growth ...")."""
    return _names_both(aspects, _words_of(passage) | _words_of(record.title or ""))


def addresses(aspects: Aspects, record: Record, passage: str, scope: Literal["record", "passage"]) -> bool:
    """Whether a passage of `record` may take a side on a statement with these aspects (`court.aspect_scope`)."""
    return passage_addresses(aspects, passage, record) if scope == "passage" else record_addresses(aspects, record)


def _names_both(aspects: Aspects, words: frozenset[str]) -> bool:
    if not aspects.checkable:
        return True
    subject = aspects.subject <= words if aspects.whole_subject else bool(aspects.subject & words)
    return subject and bool(aspects.object & words)


def names_object(statement: str, text: str) -> bool:
    """Whether `text` itself names a content word of the statement's object (False when it has none to name): a
    passage's "no significant difference (p = 0.4)" is about the claim's outcome only if it names it, not about the
    groups' ages at baseline."""
    wanted = aspects_of(statement).object
    return bool(wanted & _words_of(text))


def words_of(text: str) -> frozenset[str]:
    """A text's words as the aspects name them (prefixes, spellings met): `aspects.subject & words_of(text)` is what
    of a statement's subject the text names."""
    return _words_of(text)


@lru_cache(maxsize=1024)
def _words_of(text: str) -> frozenset[str]:
    """A record's words as prefixes, once per record text: the court asks for every passage of a record it judges."""
    return _prefixes(text)


def names_all(names: list[str], text: str) -> bool:
    """Whether `text` names every one of `names` (the question's names: "DUSP4", "TNF-alpha"), read as unnamed_terms
    reads a record."""
    named = _words_of(text)
    return all(is_named(name.lower().translate(GREEK), named) for name in names)


def is_named(term: str, named: frozenset[str]) -> bool:
    """A term is named when its prefix is, or, for a compound of words ("low-dose", "insulin-resistant"), when each
    of its words that is not a relation word is: "low-dose" asks for a dose, and a record giving one in mg names it.
    A name such as "IL-17" is not split (a record's "IL-6" and "17 patients" do not name it)."""
    if _spelled(term)[:PREFIX] in named:
        return True
    words = term.split("-")
    if len(words) < 2 or not all(word.isalpha() and len(word) >= 3 for word in words):
        return False
    kept = [word for word in words if word not in RELATION_WORDS]
    return bool(kept) and all(_spelled(word)[:PREFIX] in named for word in kept)
