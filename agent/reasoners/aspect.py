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

from agent.lexicon import DOWN, HEDGES, NEGATIONS, UP
from agent.reasoners.grammar import PREPOSITIONS, SUBORDINATORS, finite_verb, is_verb_only
from agent.records import Hypothesis, Record
from agent.text import content_terms

PREFIX = 5

# Who or what a finding is about: words most abstracts have, yet beside a topic word they say where a claim holds
# ('in *human* embryos', 'in *older* smokers').
POPULATION_WORDS = frozenset(
    """patients subjects individuals people humans human cells cell mice mouse rats rat adults adult children child
    women men older elderly young participants population cohort""".split()
)
# Words that state a relation, a measure, a population or a judgement ("is safe", "is worth the effort": PubMedQA's
# questions) rather than name the thing studied: most abstracts have some, and a judgement is what the study decides.
RELATION_WORDS = UP | DOWN | NEGATIONS | HEDGES | POPULATION_WORDS | frozenset(
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
_GREEK = str.maketrans({"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "κ": "kappa", "ε": "epsilon", "λ": "lambda"})


# British and American spellings meet: "anaemia" / "anemia", "ischaemic" / "ischemic", "oestrogen" / "estrogen",
# "tumour" / "tumor" (seen: "The records it rests on do not mention anemia" under an answer quoting "anaemia").
_SPELLING = re.compile(r"ae|oe|(?<=[a-z]{2})our")


def _spelled(term: str) -> str:
    return _SPELLING.sub(lambda m: "e" if m.group() in ("ae", "oe") else "or", term)


def _prefixes(text: str, drop: frozenset[str] = frozenset()) -> frozenset[str]:
    return frozenset(_spelled(term)[:PREFIX] for term in content_terms(text.translate(_GREEK)) if term not in drop)


@lru_cache(maxsize=4096)
def aspects_of(statement: str) -> Aspects:
    """Subject words before the finite verb, object words after it (relation words left out of both)."""
    verb = finite_verb(statement)
    if verb is None:
        return NOT_CHECKED
    words = statement.split()
    before, after = " ".join(words[: verb[0]]), " ".join(words[verb[0] + 1:])
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


# Words that ask rather than name what is asked about ("What is known about the mechanisms by which ...").
QUESTION_WORDS = frozenset(
    """what which who whom whose when where why how can could should would will known know current currently state
    evidence literature studies study research mechanism mechanisms pathway pathways basis factor factors main major
    key primary new recent latest work works act acts happen happens explain explains way ways kind kinds type types
    best most many much mean means compare compares take takes part play plays interact interacts occur occurs become
    becomes drive drives having differ differs""".split()
)
# "Which genetic variant is ...", "In which group is ...", "Which proteins does ...": the words between "which" / "what"
# and an auxiliary name the kind of thing asked for, which the answering record names by its instance ("DGKK").
_ASKED_KIND = re.compile(r"\b(?:which|what)\s+((?:[\w-]+\s+){1,3}?)(?:is|are|was|were|do|does|did|can|could|has|have|had|may|might|will|would|should)\b", re.I)


def unnamed_terms(question: str, records: list[Record], together: bool = True) -> list[str]:
    """The question's topic words (as the question writes them) that none of `records` names, read as record_addresses
    reads them: an open question on "the role of IL-17 in psoriasis" answered from IL-17 papers that never mention
    psoriasis gets ["psoriasis"], so the answer can say what its sources leave out. `together`: the words of a
    qualifier ('in human embryos') must be named by one record."""
    per_record = [_record_words(r) for r in records]
    named = frozenset().union(*per_record)
    question = question.translate(_GREEK)
    kind = _ASKED_KIND.search(question)
    asked_kind = set(content_terms(kind.group(1))) if kind else set()
    asked = [t for t in content_terms(question) if t not in RELATION_WORDS and t not in QUESTION_WORDS and t not in asked_kind]
    missing = {t for t in asked if not _named(t, named)}
    for phrase, _ in _qualifiers(question, set(asked)) if together else []:  # 'in human embryos': one record must name both words
        if not _named_whole(phrase, per_record):
            missing |= set(phrase)
    return _phrases(question, missing)


def unnamed_settings(question: str, records: list[Record], names: list[str]) -> list[str]:
    """What a claim or yes / no question is claimed for that none of `records` names: a qualifier of two or more words
    ('in patients with *heart failure*', 'among *Chinese citizens*': one record must name all of it), and the
    question's `names` ('TRF2'), as the question writes them. Not its other words: a claim's predicate ('deactivates',
    'is inaccurate', 'offers') is what its records say in their own words, and saying they "do not mention" it
    misleads (seen on half the answers to PubMedQA's yes / no questions, stop 33)."""
    per_record = [_record_words(r) for r in records]
    translated = question.translate(_GREEK)
    asked = {t for t in content_terms(translated) if t not in RELATION_WORDS and t not in QUESTION_WORDS}
    missing = [written for phrase, written in _qualifiers(translated, asked) if not _named_whole(phrase, per_record)]
    texts = [r.text.lower() for r in records]
    named = frozenset().union(*per_record)
    missing += [name for name in names if not any(name.lower() in text for text in texts)
                and not _named(name.lower().translate(_GREEK), named) and not any(name in phrase for phrase in missing)]
    return list(dict.fromkeys(missing))


def _record_words(record: Record) -> frozenset[str]:
    """A record's words as prefixes; "81 mg" names a dose, so "low-dose" is not missing from it."""
    return _words_of(record.text) | (DOSE_WORDS if _DOSE.search(record.text) else frozenset())


def _named_whole(phrase: list[str], per_record: list[frozenset[str]]) -> bool:
    """Whether one record names every term of a qualifier (`per_record`: each record's words, _record_words)."""
    return any(all(_named(t, words) for t in phrase) for words in per_record)


# Prepositions that say where, among whom or under what a finding holds ('in human embryos', 'among Chinese citizens').
_SETTING_PREPOSITIONS = frozenset("in among with without during after before within across".split())
_RUN_BREAKS = SUBORDINATORS | PREPOSITIONS  # a qualifier's words end at a clause or another preposition
_EDGE_PUNCT = "?!.,;:()\"'"  # stripped from a question's words before they are read as terms


def _qualifiers(question: str, asked: set[str]) -> list[tuple[list[str], str]]:
    """The question's topic words after a setting preposition, two or more in a row, as terms and as written: the
    setting or the people a finding is claimed for ('in patients with *heart failure*', 'in *human embryos*').
    Records that name "human" and "embryos" only apart, one about rats and one about mouse embryos, do not speak of
    human embryos. A run ends at a word that can only be a verb ('... in patients *receiving* ...'), at a clause
    ('while', '--') and at punctuation."""
    words = question.split()
    found: list[tuple[list[str], str]] = []
    for i, word in enumerate(words[:-1]):
        if word.lower() not in _SETTING_PREPOSITIONS or word[-1:] in ",;:":
            continue
        run: list[str] = []
        written: list[str] = []
        for following in words[i + 1:]:
            bare = following.strip(_EDGE_PUNCT)
            terms = content_terms(bare.translate(_GREEK))
            if "--" in following or len(terms) != 1 or is_verb_only(bare) or bare.lower() in _RUN_BREAKS:
                break
            if terms[0] not in asked and terms[0] not in POPULATION_WORDS:
                break
            run.append(terms[0])
            written.append(bare)
            if following[-1:] in ",;:?!.)":
                break
        if len(run) >= 2 and set(run) & asked:
            found.append((run, " ".join(written)))
    return found


def _phrases(question: str, missing: set[str]) -> list[str]:
    """The missing terms as the question writes them, neighbours joined: "heart failure", not "heart or failure"."""
    phrases: list[str] = []
    run: list[str] = []
    for word in [*question.split(), ""]:
        written = word.strip(_EDGE_PUNCT)
        terms = content_terms(written)  # "Alzheimer's" is the term "alzheimer"
        if written and terms and all(term in missing for term in terms):
            run.append(written)
            if word[-1:] not in ",;:?!.)":
                continue
        if run:
            phrases.append(" ".join(run))
            run = []
    found = {term for phrase in phrases for term in content_terms(phrase)}
    phrases += sorted(missing - found)  # a term the question writes inside another token ('IL-17/IL-23')
    return list(dict.fromkeys(phrases))


def names_all(names: list[str], text: str) -> bool:
    """Whether `text` names every one of `names` (the question's names: "DUSP4", "TNF-alpha"), read as unnamed_terms
    reads a record."""
    named = _words_of(text)
    return all(_named(name.lower().translate(_GREEK), named) for name in names)


DOSE_WORDS = frozenset({"dose", "doses", "dosag", "dosin", "dosed"})
_DOSE = re.compile(r"\d\s*(?:mg|g|µg|μg|mcg|ug|ng|iu|IU|units?|ml|mL)(?:/(?:kg|day|d|m2))?\b")


def _named(term: str, named: frozenset[str]) -> bool:
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
