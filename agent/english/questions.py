"""Question analysis without a model: task type, polar-question rewriting, negation (what a question asks for is
agent.english.asks; a multiple-choice option as a statement, agent.english.options)."""

from __future__ import annotations

import re

from agent.english.lexicon import ANTONYMS, DIRECTION_SWAPS
from agent.english.negation import negate_claim
from agent.english.polar import polar_statement, predicative_index
from agent.english.words import DETERMINERS, PREPOSITIONS, is_adjective, is_adverb, is_base_verb, is_noun
from agent.records import TaskType

_AUX = r"(does|do|did|is|are|was|were|can|could|will|would|should|has|have|had|may|might|must)"
_POLAR = re.compile(rf"^\s*{_AUX}\b\s+(.*?)\??\s*$", re.I | re.S)
_WH = re.compile(r"^\s*(what|which|who|whom|whose|when|where|why|how)\b", re.I)


def classify_task(question: str, options: list[str], mode: str = "ask") -> TaskType:
    if options:
        return "mcq"
    if mode == "verify":
        return "claim"
    if is_polar(question):
        return "polar"
    text = question.strip()
    if text.endswith("?") or _WH.match(text):
        return "open"
    return "claim"


def _titled(text: str) -> tuple[str, str] | None:
    """'Topic: is it safe?' / 'Topic. Is it safe?' / 'Topic--are there ...?' -> (topic, asked) when `asked` is polar."""
    parts = _TITLE_SEPARATOR.split(text, maxsplit=1)
    if len(parts) == 2 and len(parts[0].strip()) >= 3 and _POLAR.match(parts[1].strip()):
        return parts[0].strip(), parts[1].strip()
    return None


def is_polar(question: str) -> bool:
    """Yes/no question ('Does X increase Y?', 'Topic: is it safe?')."""
    text = question.strip()
    return text.endswith("?") and (bool(_POLAR.match(text)) or _titled(text) is not None)


_COPULAS = ("is", "are", "was", "were")
_PRONOUNS = ("it", "they", "this", "these", "that", "those")  # a subject of one word ('Is it time to ...?')
_THERE = re.compile(rf"^\s*({'|'.join(_COPULAS)})\s+there\s+(.*?)\??\s*$", re.I | re.S)
_TITLE_SEPARATOR = re.compile(r":\s+|\.\s+(?=[A-Z])|--|\s[-–]\s")
_TITLED = re.compile(
    rf"^(?P<topic>[^?]{{3,}}?)(?::\s*|\.\s+|--|\s[-–]\s)(?P<aux>{_AUX})\s+(?P<pronoun>{'|'.join(_PRONOUNS)})\s+(?P<rest>.*?)\??\s*$",
    re.I | re.S,
)
_KEPT_AUX = {
    "is",
    "are",
    "was",
    "were",
    "can",
    "could",
    "will",
    "would",
    "should",
    "has",
    "have",
    "had",
    "may",
    "might",
    "must",
}


# Words that open the predicate of "Is <subject> <predicate>?": the copula goes before the first of them.
_PREDICATE_OPENERS = frozenset(
    """safe unsafe effective ineffective efficacious necessary unnecessary useful helpful beneficial harmful able unable
    possible feasible reliable accurate valid superior inferior equivalent equal different similar comparable
    predictive prognostic sufficient insufficient adequate appropriate important relevant dangerous worth
    worthwhile justified warranted required needed indicated mandatory cost-effective correlated associated related
    linked due responsible present common rare frequent higher lower increased decreased elevated reduced better
    worse more less still also really always truly routinely independent independently influenced affected caused
    involved sensitive specific consistent good poor true real essential aware viable predictable applicable adherent
    representative justifiable positively negatively significantly directly inversely clinically economically""".split()
)
_SUBJECT_LINKS = frozenset(
    "of in for with on at by to from among after before during and or a an the this these that those who which "
    "is are was were".split()
)
_AFTER_PARTICIPLE = frozenset(
    "with to by in for among at on as from during".split()
)  # 'underdiagnosed in', 'compromised during'
_AFTER_GERUND = frozenset("a an the among".split())  # 'making a difference', 'increasing among'
_QUANTITY = re.compile(r"^[-−+~≈<>≤≥]?\d[\d.,]*(?:%|°c|°f|°)?$", re.I)
_QUANTITY_WORDS = frozenset("about approximately around roughly nearly almost exactly below above under over".split())
_UNITS = frozenset(
    """c °c f °f k ° degrees degree kelvin celsius fahrenheit % percent years year days day hours hour h minutes min
    seconds s ms mg g kg µg ug ml l nm µm um mm cm m km ev kev mev gev j kj kcal cal mol mmol µmol hz khz mhz ghz pa
    kpa mpa gpa atm bar w kw mw v mv kv times fold ppm ppb au""".split()
)
_QUANTIFIED = DETERMINERS | {
    "half"
}  # first words of a subject that "the" continues: "all the evidence", "half the patients"


def _is_measure(words: list[str], i: int) -> bool:
    """A quantity that ends the question: '-196 C', '37 °C', 'about 5730 years', 'below 30 C', '180 degrees' (a
    number followed by nothing or by unit words only; 'type 2 diabetes' is a name, not a quantity)."""
    j = i + 1 if _core_word(words[i]) in _QUANTITY_WORDS else i
    return (
        j < len(words)
        and bool(_QUANTITY.match(words[j]))
        and all(_core_word(w) in _UNITS for w in words[j + 1 :])
        and len(words) - j <= 3
    )


_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred".split()
)


def _bounds_subject(words: list[str], i: int) -> bool:
    """'every even integer *greater than 2* the sum of two primes', 'patients *older than 65* at higher risk': a
    comparative with a number after "than" (and its units) is a post-modifier of the subject when a predicate
    opens after it; the copula goes there. 'Is the core hotter than 5000 K?' keeps its comparative as the predicate."""
    j = i + 2
    if j >= len(words) or not (_QUANTITY.match(_core_word(words[j])) or _core_word(words[j]) in _NUMBER_WORDS):
        return False
    j += 1
    while j < len(words) and _core_word(words[j]) in _UNITS:
        j += 1
    return any(_opens_predicate(words, k) for k in range(j, len(words)) if words[k - 1].lower() not in _SUBJECT_LINKS)


def _core_word(word: str) -> str:
    return word.lower().strip(",;:()")


def _opens_predicate(words: list[str], i: int) -> bool:
    word = words[i].lower().strip(",;:")
    following = words[i + 1].lower() if i + 1 < len(words) else ""
    if word in _PREDICATE_OPENERS or words[i] in ("a", "an"):
        return True  # 'a'/'an' only in lower case: 'type A dissection' is still the subject
    if word == "cost" and following in ("effective", "saving", "efficient"):
        return True  # 'Are statins *cost effective*?'
    if word == "at" and following in ("risk", "increased", "higher", "high", "greater", "lower", "low"):
        return True  # 'are women who are treated for X *at risk* for Y
    if word == "the":  # 'Are mitochondria *the* powerhouse', not 'Is all the evidence'
        return i >= 2 or words[0].lower() not in _QUANTIFIED
    if following == "than" and is_adjective(word):
        # a comparative: 'Is the Earth's core *hotter* than the Sun's surface?', unless it bounds the subject
        return not _bounds_subject(words, i)
    if _is_measure(words, i):
        return True
    if word.endswith("ed") and len(word) > 3 and following in ("less", "more"):
        return True  # 'are articles *cited* less often than ...': a participle before a comparison opens the predicate
    if word.endswith("ed") and len(word) > 4:
        return following in _AFTER_PARTICIPLE
    if word in PREPOSITIONS:
        return False  # 'monitoring *during* the first transfusion': a preposition, not a gerund
    return (
        word.endswith("ing") and len(word) > 5 and (following in _AFTER_GERUND or not following)
    )  # '... melanoma *rising*?'


def _copula_statement(copula: str, rest: str) -> str | None:
    """'Is <subject> <predicate>' as '<subject> is <predicate>': the copula goes before the first word that
    opens a predicate ('safe', 'a', 'still', 'the' after the subject's first two words, a participle before a
    preposition, a gerund before an article), unless the word before it continues the subject ('rate *of* the',
    '*a* mandatory rotation'). A pronoun subject is one word. None when no opener is found."""
    words = rest.split()
    if len(words) > 1 and words[0].lower() in _PRONOUNS:
        return " ".join([words[0], copula, *words[1:]])  # 'Is it time to ...' -> 'It is time to ...'
    for i in range(1, len(words)):
        if words[i - 1].lower() not in _SUBJECT_LINKS and _opens_predicate(words, i) and not _attributive(words, i):
            i = _before_adverbs(words, i)
            return " ".join([*words[:i], copula, *words[i:]])
    if (at := predicative_index(words)) is not None:
        at = _before_adverbs(words, at)
        return " ".join([*words[:at], copula, *words[at:]])
    if copula in ("are", "were") and (at := _progressive(words)) is not None:
        return " ".join([*words[:at], copula, *words[at:]])
    return None


def _is_clause(topic: str) -> bool:
    """'Maternal creatine homeostasis is altered during gestation: is this a metabolic adaptation?': a topic that says
    something (it has a copula of its own) cannot stand in for the pronoun; the statement follows it, as 'This is
    ...'."""
    return any(word.lower() in _COPULAS for word in topic.split()[1:])


def _progressive(words: list[str]) -> int | None:
    """'are laboratories *reporting* serum hCG results correctly': an -ing form after a plural noun, where nothing else
    opens the predicate, is the progressive."""
    for i in range(1, len(words)):
        word, before = words[i].lower(), words[i - 1].lower()
        if (
            word.endswith("ing")
            and len(word) > 5
            and word not in PREPOSITIONS
            and before.endswith("s")
            and is_noun(before)
        ):
            return i
    return None


def _attributive(words: list[str], i: int) -> bool:
    """'are head and neck *specific* quality of life measures necessary': an adjective before a noun, in a question
    that ends on an adjective, belongs to the subject; the copula goes before the last word."""
    following = words[i + 1].lower() if i + 1 < len(words) else ""
    last = words[-1].lower().strip(",;:")
    return (
        i + 2 < len(words)
        and is_adjective(words[i])
        and not is_adverb(words[i])
        and is_noun(following)
        and not is_adjective(following)
        and is_adjective(last)
    )


def _before_adverbs(words: list[str], i: int) -> int:
    """The copula goes before the adverbs that open the predicate: 'are Austrian seniors *adequately* protected',
    'is partial prostatectomy *oncologically* adequate' (not 'seniors adequately are protected')."""
    while (
        i > 1
        and words[i - 1].lower().endswith("ly")
        and is_adverb(words[i - 1])
        and not is_adjective(words[i - 1])
        and words[i - 2].lower() not in _SUBJECT_LINKS
    ):
        i -= 1
    return i


def _capitalised(text: str) -> str:
    """The statement's first letter in upper case, unless its first word is a name written in lower case on purpose
    ('p53 alterations', 'mRNA levels', 'β-catenin': not 'P53', 'MRNA', 'Β-catenin')."""
    text = text.strip().rstrip("?").strip()
    first = text.split(maxsplit=1)[0] if text else ""
    stem = first.split("-")[0]  # 'endothelin-1' and 'ki-67' are capitalised, 'p53' is not
    if not first or any(ch.isdigit() for ch in stem) or any(ch.isupper() for ch in first[1:]) or not first[0].isascii():
        return text
    return text[:1].upper() + text[1:]


_OR_NOT = re.compile(r",?\s+or\s+not\s*\?$", re.I)
_IS_IT_TRUE = re.compile(
    r"^\s*is\s+it\s+(?:really\s+)?(?:true|the\s+case|correct|a\s+fact)\s+that\s+(.+?)\s*\??\s*$", re.I | re.S
)


def polar_to_claim(question: str) -> str:
    """A yes/no question as the statement a "yes" would assert.

    'Does hypoglycemia increase the risk of dementia?' -> 'Hypoglycemia increases the risk of dementia' (do-support
    folds into the verb's inflection, a modal moves before the verb: agent.english.grammar); a copula is
    moved, not dropped, since without it the statement has no verb ('Is aspirin safe in children?' -> 'Aspirin
    is safe in children'; dropped only when the predicate's start is not found);
    'Is there a need for X?' -> 'There is a need for X'; titled questions ('Double balloon enteroscopy: is it
    safe?') put the topic back in the pronoun's place ('Double balloon enteroscopy is safe'); a closing "or not" asks
    nothing more ('Is aspirin better than placebo or not?' -> 'Aspirin is better than placebo').
    """
    text = _OR_NOT.sub("?", question.strip())
    if match := _IS_IT_TRUE.match(
        text
    ):  # 'Is it true that statins cause diabetes?' asks whether statins cause diabetes
        return _capitalised(match.group(1))
    if match := _THERE.match(text):
        return _capitalised(f"there {match.group(1).lower()} {match.group(2)}")
    if (match := _TITLED.match(text)) and not _is_clause(match["topic"]):
        aux = match["aux"].lower()
        if aux not in _COPULAS and (
            statement := polar_statement(aux, f"{match['pronoun']} {match['rest']}", subject=match["topic"].strip())
        ):
            return _capitalised(statement)
        verb = f" {aux}" if aux in _KEPT_AUX else ""
        return _capitalised(f"{match['topic'].strip()}{verb} {match['rest']}")
    if not _POLAR.match(text) and (titled := _titled(text)):
        return f"{titled[0]}: {polar_to_claim(titled[1])}"
    match = _POLAR.match(text)
    if match is None:
        return _capitalised(text)
    rest = match.group(2)
    copula = match.group(1).lower()
    if copula in _COPULAS and (statement := _copula_statement(copula, rest.strip().rstrip("?"))):
        return _capitalised(statement)
    if copula not in _COPULAS and (statement := polar_statement(copula, rest.strip().rstrip("?"))):
        return _capitalised(statement)
    return _capitalised(rest)


_ALTERNATIVE = re.compile(r"^(?P<head>.*\S)\s+or\s+(?P<right>[^,;:?]+?)\s*\?\s*$", re.I | re.S)
_MAX_ALTERNATIVE_WORDS = 4


def alternative_statements(question: str) -> list[str] | None:
    """An alternative question as the two statements it asks between, or None for any other question.

    'Is light a wave or a particle?' -> ['Light is a wave', 'Light is a particle'] (a copula whose whole predicate is
    the first alternative); 'Is the drug safe or effective in children?' -> [... safe in children, ... effective in
    children] (a phrase after the second alternative is shared); 'Does exercise increase or decrease appetite?' ->
    ['Exercise increases appetite', 'Exercise decreases appetite'] (two verbs sharing an object). Read as yes / no,
    such a question gets "Yes: light is a wave or a particle". Left alone, because "or" there joins what a yes or no
    answers: an "or" in the subject ('Does smoking or obesity increase ...?'), "or not", a list after a longer
    predicate ('Is aspirin more effective than ibuprofen or paracetamol?')."""
    text = question.strip()
    polar, match = _POLAR.match(text), _ALTERNATIVE.match(text)
    if polar is None or match is None or _titled(text) is not None:
        return None
    aux, head, right = polar.group(1).lower(), match["head"], match["right"].split()
    if not right or len(right) > _MAX_ALTERNATIVE_WORDS + 3 or right[-1].lower() == "not":
        return None
    if aux in ("does", "do", "did"):
        left_verb, right_verb = head.split()[-1], right[0]
        if len(head.split()) < 3 or not (is_base_verb(left_verb) and is_base_verb(right_verb)) or len(right) < 2:
            return None
        shared = " ".join(right[1:])
        first, second = (
            polar_to_claim(f"{head} {shared}?"),
            polar_to_claim(f"{head.rsplit(' ', 1)[0]} {' '.join(right)}?"),
        )
        return [first, second] if first != second and f" {shared}" in first and f" {shared}" in second else None
    if aux not in _COPULAS:
        return None
    cut = next((k for k, w in enumerate(right) if k > 0 and w.lower() in PREPOSITIONS), len(right))
    alternative, tail = right[:cut], right[cut:]
    first = polar_to_claim(" ".join([head, *tail]) + "?")
    words = first.split()
    verb = next((k for k, w in enumerate(words) if w.lower() == aux), None)
    if verb is None or verb == 0:
        return None  # no copula placed: the first alternative's statement has no predicate to swap
    predicate = words[verb + 1 : len(words) - len(tail)]
    if (
        not predicate
        or len(predicate) > _MAX_ALTERNATIVE_WORDS
        or len(alternative) > _MAX_ALTERNATIVE_WORDS
        or abs(len(predicate) - len(alternative)) > 1
    ):
        return None
    second = " ".join([*words[: verb + 1], *alternative, *tail])
    return [first, second] if first.lower() != second.lower() else None


def negate(statement: str) -> str:
    """The statement that `statement` does not hold ('X does not increase Y'): what the court weighs against it."""
    return negate_claim(statement)


# Antonym words that are as often part of a term ("the common cold", "high blood pressure", "low-dose aspirin",
# "negative symptoms") as a statement's direction: swapped only where they are the predicate ("is common").
_ATTRIBUTIVE = frozenset({"common", "rare", "high", "low", "positive", "negative", "stable", "unstable"})
# ANTONYMS reads "lower" as the verb (opposite "raise"); claims mostly compare, as DIRECTION_SWAPS reads it ("higher")
_CONTRARY_OVERRIDES = {"lower": DIRECTION_SWAPS["lower"]}
_PREDICATE_BEFORE = frozenset(
    {*_COPULAS, "be", "been", "being", "remain", "remains", "remained", "become", "becomes", "became"}
)


def contrary(statement: str) -> str:
    """A falsifying search query: the first direction word swapped for its antonym ('X decreases Y'), which finds
    evidence for the opposite effect; else the negation. For retrieval only: the contrary is a stronger claim
    than the negation, so it is never a hypothesis. A word that may belong to a term is swapped only as the
    predicate: "Vitamin C prevents the common cold" is not contradicted by "... the rare cold"."""
    words = statement.split()
    swappable = [
        (i, core)
        for i, word in enumerate(words)
        if (core := word.strip(".,;:()").lower()) in ANTONYMS
        and (core not in _ATTRIBUTIVE or (i > 0 and words[i - 1].lower() in _PREDICATE_BEFORE))
    ]
    if not swappable:
        return negate_claim(statement)
    # "associated with lower mortality": the direction is the comparative's; "unassociated" only when nothing else
    i, core = next(((i, core) for i, core in swappable if core != "associated"), swappable[0])
    swapped = _CONTRARY_OVERRIDES.get(core, ANTONYMS[core])
    words[i] = words[i].lower().replace(core, swapped)
    if i > 0 and words[i - 1].lower() in ("a", "an"):  # "an increased risk" -> "a decreased risk", not "an decreased"
        article = "an" if swapped[0] in "aeiou" else "a"
        words[i - 1] = article.capitalize() if words[i - 1][0].isupper() else article
    return " ".join(words)
