"""English words by class: auxiliaries, determiners and prepositions, and lemminflect's lexicon of which words can be
verbs, nouns or adjectives and how a verb inflects (offline; no tagger)."""

from __future__ import annotations

from functools import lru_cache

MODALS = frozenset("can could may might must shall should will would".split())
BE = frozenset("is are was were am".split())
DO = {"does": "VBZ", "do": "VBP", "did": "VBD"}
HAVE = frozenset("has have had".split())
AUXILIARIES = MODALS | BE | set(DO) | HAVE
NEGATIVE_AUXILIARIES = frozenset({"cannot"} | {f"{a}n't" for a in AUXILIARIES} | {"can't", "won't"})
NEGATIONS = frozenset("not never no cannot n't".split())
PRONOUNS = frozenset("it they this these that those you we i he she there".split())
DETERMINERS = frozenset(
    "a an the this these those that its their his her our your my some any each every no all both many several".split()
)
PREPOSITIONS = frozenset(
    "of in on at by for with from to into onto among between during after before about against via per within "
    "without than versus over under through across near".split()
)
RELATIVES = frozenset("who which that whom whose".split())
CONJUNCTIONS = frozenset("and or but ;".split())
VERB_PREFIXES = ("under", "over", "re", "de", "co", "mis", "out", "up", "pre", "dis", "down", "cross")
PUNCT = ".,;:!?()[]\"'"


@lru_cache(maxsize=20_000)
def lemmas_of(word: str) -> dict[str, tuple[str, ...]]:
    from lemminflect import getAllLemmas, getAllLemmasOOV

    lemmas = dict(getAllLemmas(word.lower()))
    if not lemmas or list(lemmas) == ["ADJ"]:  # a relation verb the lexicon lacks: 'correlate(s)', 'correlated'
        verb = getAllLemmasOOV(word.lower(), upos="VERB").get("VERB", ())
        if verb and verb[0] in RELATION_VERBS:
            lemmas["VERB"] = verb
    return lemmas


@lru_cache(maxsize=20_000)
def inflect_as(lemma: str, tag: str) -> str:
    from lemminflect import getInflection

    forms = getInflection(lemma, tag=tag)
    return forms[0] if forms else lemma


def word_core(word: str) -> str:
    return word.strip(PUNCT).lower()


def verb_lemma(word: str) -> str | None:
    """The verb lemma of `word`, also for unlisted prefixed verbs ('underprescribe' -> 'underprescribe')."""
    core = word_core(word)
    lemmas = lemmas_of(core)
    if "VERB" in lemmas:
        return lemmas["VERB"][0]
    if "-" in core:  # 'up-regulates' -> 'up-regulate'
        head, tail = core.rsplit("-", 1)
        if head in VERB_PREFIXES + ("self", "trans") and "VERB" in lemmas_of(tail):
            return f"{head}-{lemmas_of(tail)['VERB'][0]}"
    for prefix in VERB_PREFIXES:
        rest = core[len(prefix) :]
        if core.startswith(prefix) and len(rest) >= 4 and not lemmas and "VERB" in lemmas_of(rest):
            return prefix + lemmas_of(rest)["VERB"][0]
    return None


def has_form(word: str, tag: str) -> bool:
    """Whether `word` is the `tag` form (VB, VBZ, VBD, VBN) of a verb."""
    lemma = verb_lemma(word)
    if lemma is None:
        return False
    core = word_core(word)
    if tag == "VB":
        return core == lemma
    if "-" in lemma and "-" in core:
        head, tail = lemma.rsplit("-", 1)
        return core == f"{head}-{inflect_as(tail, tag)}"
    return core == inflect_as(lemma, tag)


def can_be_noun_or_adjective(word: str) -> bool:
    lemmas = lemmas_of(word_core(word))
    return "NOUN" in lemmas or "ADJ" in lemmas or "PROPN" in lemmas


def modifies_next(word: str) -> bool:
    """A determiner, preposition or adjective-only word: what follows it is a noun, not a verb."""
    core = word_core(word)
    if core in RELATIVES - {"that"}:
        return False
    if core in DETERMINERS or core in PREPOSITIONS:
        return True
    if "-" in core and core.endswith(("ing", "ed")):
        return True  # 'self-inflating bag', 'drug-eluting stents', 'HIV-infected patients'
    return set(lemmas_of(core)) == {"ADJ"}


def is_plural_subject_word(word: str) -> bool:
    core = word_core(word)
    if core in ("they", "we", "you", "i", "these", "those"):
        return True
    lemmas = lemmas_of(core)
    if not lemmas:  # an unlisted word: 'retrotransposons', 'CAFs'
        return core.endswith("s") and not core.endswith(("ss", "us", "is"))
    return "NOUN" in lemmas and lemmas["NOUN"][0] != core


# ----------------------------------------------------------------------------------------- negation
def case_like(word: str, template: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if template[:1].isupper() else word


def replace_core(word: str, new: str) -> str:
    """`word` with its letters replaced by `new`, punctuation around it kept."""
    core = word.strip(PUNCT)
    start = word.find(core)
    return word[:start] + case_like(new, core) + word[start + len(core) :]


def article_for(word: str) -> str:
    """'a' or 'an' by the sound of the next word ('a uniform', 'an hour', 'an MRI')."""
    core, letters = word_core(word), word.strip(PUNCT)
    if letters.isupper() and len(letters) > 1:
        return "an" if letters[0] in "AEFHILMNORSX" else "a"
    if core.startswith(("uni", "use", "usu", "uti", "eu", "one", "ure", "uro")):
        return "a"
    return "an" if core[:1] in "aeiou" or core.startswith(("hour", "honest", "heir")) else "a"


def is_base_verb(word: str) -> bool:
    """Whether `word` can be a verb's base form, not an auxiliary ('increase', 'lower'; not 'does')."""
    return has_form(word, "VB") and word_core(word) not in AUXILIARIES


def is_verb_form(word: str, strict: bool = True) -> bool:
    """Whether `word` is a present-tense third-person verb, not an auxiliary ('lowers'; not 'does', not 'statins');
    `strict`: only a verb ('lowers', but not 'increases', which can be a noun)."""
    return (
        has_form(word, "VBZ") and word_core(word) not in AUXILIARIES and not (strict and can_be_noun_or_adjective(word))
    )


def agreeing_verb(subject: str, verb: str) -> str:
    """`verb` in the form its new subject needs: ('statins', 'lowers') -> 'lower', ('metformin', 'is') -> 'is',
    ('statins', 'was') -> 'were'. A word that is not a present or past copula or a present-tense verb is returned
    as it is."""
    words = subject.split()
    plural = bool(words) and (is_plural_subject_word(words[-1]) or any(word_core(w) == "and" for w in words))
    core = word_core(verb)
    if core in ("is", "are", "was", "were"):
        present = core in ("is", "are")
        return replace_core(verb, ("are" if present else "were") if plural else ("is" if present else "was"))
    if has_form(verb, "VBZ") and plural:
        return inflected(verb, "VBP")
    if has_form(verb, "VB") and not plural and not can_be_noun_or_adjective(verb):
        return inflected(verb, "VBZ")
    return verb


# Verbs that state how a subject bears on an object, the predicates of most yes / no questions in science: where the
# word taken for the verb could as well be a noun ('count', 'culture', 'pressure') and one of these follows, this is
# the verb ('does the leukocyte count *correlate* with', 'does blood pressure *change* in').
RELATION_VERBS = frozenset(
    """affect influence impact alter change modify predict correlate cause prevent improve reduce increase decrease
    lower raise enhance promote inhibit induce mediate regulate determine reflect contribute lead result depend differ
    benefit protect matter exist occur vary explain relate respond worsen delay shorten prolong limit double triple
    halve""".split()
)


_ADJECTIVE_ENDINGS = ("ive", "less", "ous", "able", "ible", "al", "ic", "ful", "ent", "ant", "ary", "ile")


def is_adjective(word: str) -> bool:
    """An adjective by the lexicon, or, for a word the lexicon lacks ('semiconservative', 'massless',
    'reversible'), by its ending."""
    core = word_core(word)
    lemmas = lemmas_of(core)
    return "ADJ" in lemmas or (not lemmas and len(core) > 5 and core.isalpha() and core.endswith(_ADJECTIVE_ENDINGS))


def is_adverb(word: str) -> bool:
    """An adverb by the lexicon ('still', 'physically'), or a word it lacks ending in -ly ('oncologically')."""
    core = word_core(word)
    lemmas = lemmas_of(core)
    return "ADV" in lemmas or (not lemmas and len(core) > 5 and core.isalpha() and core.endswith("ly"))


def is_verb_only(word: str) -> bool:
    """A word the lexicon knows only as a verb or auxiliary ('receiving', 'influenced', 'provide'; not 'testing',
    'increase', nor a word it does not know)."""
    lemmas = lemmas_of(word_core(word))
    return bool(lemmas) and not {"NOUN", "ADJ", "PROPN"} & set(lemmas) and bool({"VERB", "AUX"} & set(lemmas))


def is_noun(word: str) -> bool:
    """A noun by the lexicon, not a verb's -ing form ('quality', 'measures'; not 'growing')."""
    core = word_core(word)
    return "NOUN" in lemmas_of(core) and not core.endswith("ing")


def inflected(word: str, tag: str) -> str:
    lemma = verb_lemma(word) or word_core(word)
    return replace_core(word, lemma if tag == "VBP" else inflect_as(lemma, tag))


SUBORDINATORS = frozenset(
    "since because while when whereas although though if unless that which who whom whose".split()
)


def negation_count(text: str) -> int:
    """How many negation words a text carries ('not', 'no', 'never', "n't", 'cannot')."""
    count = 0
    for word in text.split():
        core = word_core(word)
        count += core in NEGATIONS or core.endswith("n't")
    return count


def keeps_capital(word: str) -> bool:
    """Acronyms and names keep their capital when they stop opening the sentence ('MafA', 'HIV', 'Klf4')."""
    core = word.strip(PUNCT)
    return sum(c.isupper() for c in core) > 1 or any(c.isdigit() for c in core) or not lemmas_of(core.lower())
