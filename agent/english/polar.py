"""Yes/no questions as statements ('does X increase Y' -> 'X increases Y'), and where a question's predicate starts
(agent.english.grammar finds the verb)."""

from __future__ import annotations

import re

from agent.english.grammar import before_noun, coordinated_verb, pick_verb, same_clause, verb_candidate
from agent.english.words import (
    CONJUNCTIONS,
    DETERMINERS,
    DO,
    HAVE,
    MODALS,
    PREPOSITIONS,
    RELATION_VERBS,
    RELATIVES,
    SUBORDINATORS,
    can_be_noun_or_adjective,
    has_form,
    inflected,
    is_adjective,
    is_plural_subject_word,
    lemmas_of,
    modifies_next,
    word_core,
)

_POLAR = re.compile(
    r"^\s*(?P<aux>does|do|did|is|are|was|were|can|could|will|would|should|shall|has|have|had|may|might|must)\s+(?P<rest>.+?)\s*\??\s*$",
    re.I | re.S,
)


def polar_statement(aux: str, rest: str, subject: str | None = None) -> str | None:
    """'<aux> <subject> <predicate>' as '<subject> <aux'> <predicate>': do-support folds into the verb's inflection
    ('does X increase Y' -> 'X increases Y', 'did they change' -> 'they changed'), a modal or perfect auxiliary
    goes before the verb ('can X become' -> 'X can become'). `subject` replaces a one-word pronoun subject (a
    titled question's topic). Copulas are placed by the caller (agent.english.questions), which falls back on
    `predicative_index`. None when no verb is found."""
    aux = aux.lower()
    words = rest.split()
    if not words:
        return None
    tags = ("VBN",) if aux in HAVE else ("VB",)
    index = pick_verb(words, 1, tags, auxiliaries=False)
    if index is not None and before_noun(words, index) and not is_plural_subject_word(words[index - 1]):
        # 'does skin *care* frequency affect ...': a noun modifier; the verb is further on, before the object's first
        # preposition or determiner ('does patella position *influence* ligament balancing in total knee'), unless the
        # word is a relation verb and the later one is not ('does music *influence* stress'); after a plural noun it
        # is the verb ('do tailored interventions *increase* mammography use')
        later = next(
            (
                k
                for k in range(index + 1, _object_start(words, index))
                if verb_candidate(words, k, tags) and not before_noun(words, k)
            ),
            None,
        )
        if later is not None and (
            word_core(words[index]) not in RELATION_VERBS or word_core(words[later]) in RELATION_VERBS
        ):
            index = later
    if aux in DO and (earlier := _verb_before_object(words, len(words) if index is None else index)) is not None:
        index = earlier
    if (
        aux in MODALS
        and (be := _first_be(words)) is not None
        and (index is None or index > be or can_be_noun_or_adjective(words[index]))
    ):
        index = be  # 'should ascitis volume and anthropometric measurements *be* estimated': not 'volume'
    if (aux in DO or aux in MODALS) and index is not None and (relation := _relation_verb(words, index)) is not None:
        index = relation
    if (
        index is not None
        and index > 1
        and word_core(words[index - 1]) == "help"
        and not can_be_noun_or_adjective(words[index])
    ):
        index -= 1  # 'can the condition of the lymph nodes *help* predict the risk'
    if index is None:
        return None
    subject_words = subject.split() if subject else words[:index]
    predicate = words[index:]
    if aux in DO:
        predicate = [
            inflected(w, DO[aux]) if k == 0 or (coordinated_verb(predicate, k) and same_clause(predicate[:k])) else w
            for k, w in enumerate(predicate)
        ]
        return " ".join([*subject_words, *predicate])
    return " ".join([*subject_words, aux, *predicate])


def _relation_verb(words: list[str], index: int) -> int | None:
    """The relation verb to take instead of words[index] when that word, not itself one, could be a noun: the last
    one before it, else the first after it, a search that stops where words[index] as a verb would have its object
    ('do family physicians make *a* ...') or a clause opens ('to', 'that')."""
    if not can_be_noun_or_adjective(words[index]) or word_core(words[index]) in RELATION_VERBS:
        return None
    before = [
        k
        for k in range(1, index)
        if word_core(words[k]) in RELATION_VERBS
        and not modifies_next(words[k - 1])
        and word_core(words[k - 1]) not in CONJUNCTIONS
    ]
    if before:  # 'does Hospital Type *Affect* Cost and Outcomes of Care': the word taken was the object's noun
        return before[-1]
    for k in range(index + 1, len(words)):
        core = word_core(words[k])
        if core in DETERMINERS or core in RELATIVES or core in SUBORDINATORS or core == "to":
            return None
        if core in RELATION_VERBS and not modifies_next(words[k - 1]):
            return k
    return None


def _object_start(words: list[str], index: int) -> int:
    """Index of the first preposition or determiner after words[index] (the end when none)."""
    return next(
        (
            k
            for k in range(index + 1, len(words))
            if word_core(words[k]) in PREPOSITIONS or word_core(words[k]) in DETERMINERS
        ),
        len(words),
    )


def _first_be(words: list[str]) -> int | None:
    """Index of the first 'be' of a modal question's rest, outside brackets and before any relative clause."""
    for i, word in enumerate(words[1:], start=1):
        core = word_core(word)
        if core in RELATIVES or "(" in word:
            return None
        if core == "be":
            return i
    return None


def _verb_before_object(words: list[str], index: int) -> int | None:
    """'does aspirin *lower* fever', 'does caffeine *slow* heart rate': a word that is both a verb and an adjective,
    right after a noun and before another, read as an adjective before its noun by verb_candidate, is the verb
    when no verb was found or the one picked lies further on in what would be its object and could be a noun (not
    'aspirin lower fevers'; 'higher body mass index *contribute*' keeps its verb-only verb, and a word that can
    be a noun too stays one: 'does sea *level* rise')."""
    if index < len(words) and not can_be_noun_or_adjective(words[index]):
        return None  # (index is len(words) when no verb was found at all)
    for k in range(1, min(index, len(words) - 1)):
        before, word, following = word_core(words[k - 1]), word_core(words[k]), word_core(words[k + 1])
        lemmas, previous = lemmas_of(word), lemmas_of(before)
        if (
            "VERB" in lemmas
            and "ADJ" in lemmas
            and "NOUN" not in lemmas
            and has_form(words[k], "VB")
            and ("NOUN" in lemmas_of(following) or (not lemmas_of(following) and following.isalpha()))
            and before not in DETERMINERS
            and before not in PREPOSITIONS
            and "ADJ" not in previous
            and "ADV" not in previous
        ):
            return k
    return None


def predicative_index(words: list[str]) -> int | None:
    """Where the copula goes in 'Is <subject> <adjective> ...?' when no listed predicate opener is found: before
    the first adjective that ends the question or precedes a preposition ('is aspiration of fluid advantageous')."""
    last = len(words) - 1
    if (
        last >= 1
        and is_adjective(words[last])
        and "NOUN" not in lemmas_of(word_core(words[last]))
        and not modifies_next(words[last - 1])
    ):
        # an adjective-only last word wins over a noun-like word before a preposition
        # ('the square *root* of 2 irrational')
        return last
    for i in range(1, len(words)):
        following = word_core(words[i + 1]) if i + 1 < len(words) else ""
        if (
            is_adjective(words[i])
            and (not following or following in PREPOSITIONS or following == "to")
            and not modifies_next(words[i - 1])
        ):
            return i
    if (
        len(words) == 3
        and is_adjective(words[1])
        and not is_adjective(words[0])
        and word_core(words[0]) not in DETERMINERS
    ):
        return 1  # '<noun> <adjective> <noun>': 'are prions infectious proteins'
    if len(words) == 2 and not is_adjective(words[0]) and word_core(words[0]) not in DETERMINERS:
        return 1  # '<noun> <noun>': 'are prions proteins'
    return None
