"""A small grammar of the predicate: yes/no questions as statements, and a statement's negation.

The court weighs a claim against the claim *not holding*, so the negation of "X increases Y" is "X does not
increase Y" (not the antonym "X decreases Y", which is a different, stronger claim). Both rewrites need the
claim's finite verb: where it is, whether it is an auxiliary (insert or remove "not"), and how to inflect a
lexical verb under do-support ("does not increase" <-> "increases", "did not change" <-> "changed").

No tagger runs offline here (spaCy's models are not on the registry, nltk's tagger needs a download), so the
verb is found with lemminflect's lexicon (which words can be verbs, nouns or adjectives, and their inflections)
and a few positional rules: a subject has at least one word; a word after a determiner, preposition or
adjective is a noun; a word that can only be a verb beats one that can also be a noun; the first verb of a
relative clause ("who are treated") is not the main verb. Measured on every PubMedQA pqal_dev question and
every SciFact train claim (tests/english/test_grammar.py, evals/HISTORY.md).
"""

from __future__ import annotations

import re

from agent.english.words import (
    AUXILIARIES,
    BE,
    CONJUNCTIONS,
    DETERMINERS,
    DO,
    HAVE,
    MODALS,
    NEGATIVE_AUXILIARIES,
    PREPOSITIONS,
    PRONOUNS,
    PUNCT,
    RELATION_VERBS,
    RELATIVES,
    SUBORDINATORS,
    article_for,
    can_be_noun_or_adjective,
    has_form,
    inflect_as,
    inflected,
    is_adjective,
    is_plural_subject_word,
    keeps_capital,
    lemmas_of,
    modifies_next,
    replace_core,
    verb_lemma,
    word_core,
)


def _opens_with_participle(words: list[str], i: int) -> bool:
    """'*Approved* doctors ...', '*Increased* expression ...': a sentence-initial participle modifies its noun."""
    return i == 1 and word_core(words[0]).endswith("ed") and has_form(words[0], "VBN")


_DEGREE_WORDS = frozenset("more less most least much".split())  # 'does time pass *more* slowly': not a compound's noun


def _before_noun(words: list[str], i: int) -> bool:
    """words[i] could be a noun and the next word is a noun: a compound ('skin care frequency'), not a verb."""
    following = word_core(words[i + 1]) if i + 1 < len(words) else ""
    return (
        can_be_noun_or_adjective(words[i])
        and "NOUN" in lemmas_of(following)
        and following not in DETERMINERS
        and following not in PREPOSITIONS
        and following not in PRONOUNS
        and following not in _DEGREE_WORDS
    )


def _plural_subject(words: list[str], i: int) -> bool:
    """Whether the words before a bare verb can be a plural subject ('statins', 'X and Y', 'they')."""
    return any(is_plural_subject_word(w) or word_core(w) in ("and", "people") for w in words[:i])


def _verb_candidate(words: list[str], i: int, tags: tuple[str, ...], agree: bool = True) -> str | None:
    """'only' when words[i] is one of `tags` and can only be a verb, 'ambiguous' when it could be a noun (then
    it must not follow a determiner, preposition or adjective), else None."""
    word = words[i]
    if "(" in word or ")" in word or not any(has_form(word, tag) for tag in tags):
        return None
    if (
        agree
        and "VBZ" in tags
        and not has_form(word, "VBZ")
        and not has_form(word, "VBD")
        and not _plural_subject(words, i)
    ):
        return None  # a bare verb needs a plural subject: 'ethanol stress increases', not 'ethanol does not stress'
    if i > 1 and word_core(words[i - 1]) in ("and", "or") and can_be_noun_or_adjective(word):
        return None  # 'replacement or repair': a noun coordinated with a noun
    before = word_core(words[i - 1]) if i > 0 else ""
    if (
        i > 0
        and (modifies_next(words[i - 1]) or _opens_with_participle(words, i))
        and not (before == "that" and i > 1)
        and word_core(word) != "be"
    ):
        return None
    if word_core(word) in AUXILIARIES or not can_be_noun_or_adjective(word):
        return "only"
    if before[:1].isdigit():
        return None  # '40mg/day dosage', '2 cells': a quantity before a noun
    following = word_core(words[i + 1]) if i + 1 < len(words) else ""
    if (
        "ADJ" in lemmas_of(word_core(word))
        and "NOUN" in lemmas_of(following)
        and following not in DETERMINERS
        and not is_plural_subject_word(words[i - 1])
    ):
        return (
            None  # 'tar2 *triple* mutants': an adjective before its noun ('statins *lower* cholesterol' stays a verb)
        )
    return "ambiguous"


def _pick(words: list[str], start: int, tags: tuple[str, ...], auxiliaries: bool, agree: bool = True) -> int | None:
    """Index of the main verb in words[start:]: the leftmost verb-only word (or auxiliary), else the leftmost
    ambiguous one; a relative clause's first verb is skipped; a later verb-only word beats an earlier ambiguous
    one only up to the next conjunction."""
    first_ambiguous: int | None = None
    weak: int | None = None
    depth = 0
    skip_relative = False
    for i in range(start, len(words)):
        word, core = words[i], word_core(words[i])
        depth += word.count("(") + word.count("[")
        inside = depth > 0
        depth -= word.count(")") + word.count("]")
        if inside or not core:
            continue
        if core in RELATIVES and i > 0:
            skip_relative = True
            continue
        if (first_ambiguous is not None or weak is not None) and (core in CONJUNCTIONS or word.endswith(";")):
            break
        negative = core in NEGATIVE_AUXILIARIES
        kind = (
            "only"
            if auxiliaries and (negative or (core in AUXILIARIES and _is_auxiliary(words, i)))
            else _verb_candidate(words, i, tags, agree)
        )
        if kind is None and auxiliaries and _finite_past(words, i):
            kind = "only"
        if kind is None:
            continue
        if skip_relative:
            skip_relative = False
            continue
        if core not in AUXILIARIES and not negative and _in_compound_noun(words, i):
            weak = i if weak is None else weak
            continue
        if kind == "only":
            return i
        if first_ambiguous is None:
            first_ambiguous = i
    if weak is not None and (first_ambiguous is None or weak < first_ambiguous):
        return weak
    return first_ambiguous


def _in_compound_noun(words: list[str], i: int) -> bool:
    """'of start codons', 'in Okazaki fragments': after a preposition and a singular noun, a word
    that could be a plural noun most likely is one (it is taken as the verb only when nothing better is found)."""
    if i < 2 or word_core(words[i - 2]) not in PREPOSITIONS:
        return False
    return not is_plural_subject_word(words[i - 1])


def _is_auxiliary(words: list[str], i: int) -> bool:
    """'has' / 'do' are auxiliaries before 'not', a participle or a bare verb; otherwise main verbs ('has a role')."""
    core = word_core(words[i])
    if core in MODALS or core in BE:
        return True
    following = word_core(words[i + 1]) if i + 1 < len(words) else ""
    if following in ("not", "n't", "never", "been"):
        return True
    if core in HAVE:  # 'has increased the risk' (perfect) but 'have activated markers' (possession)
        after = word_core(words[i + 2]) if i + 2 < len(words) else ""
        object_noun = after not in DETERMINERS and after not in PREPOSITIONS and "NOUN" in lemmas_of(after)
        return i + 1 < len(words) and has_form(words[i + 1], "VBN") and not object_noun
    if core in DO:
        return has_form(words[i + 1], "VB") if i + 1 < len(words) else False
    return False


def finite_verb(statement: str) -> tuple[int, str] | None:
    """(word index, 'aux' or 'lexical') of the statement's main finite verb, or None when none is found."""
    words = statement.split()
    index = _pick(words, 1, ("VBZ", "VB"), auxiliaries=True)
    if (
        index is not None
        and index + 1 < len(words)
        and word_core(words[index]).endswith("s")
        and can_be_noun_or_adjective(words[index])
    ):
        following = words[index + 1]  # 'campaigns changed': the ambiguous word is a plural noun before a past verb
        if (
            has_form(following, "VBD")
            and not can_be_noun_or_adjective(following)
            and word_core(words[index + 2] if index + 2 < len(words) else "") not in PREPOSITIONS
        ):
            return index + 1, "lexical"
    if index is None:
        index = _pick_past(words)
    if index is None:  # 'Mitochondria play a role': a plural the lexicon does not know as one
        index = _pick(words, 1, ("VBZ", "VB"), auxiliaries=True, agree=False)
    if index is None:
        return None
    if (
        index + 1 < len(words)
        and can_be_noun_or_adjective(words[index])
        and verb_lemma(words[index]) not in RELATION_VERBS
        and verb_lemma(words[index + 1]) in RELATION_VERBS
        and has_form(words[index + 1], "VBZ")
    ):
        index += 1  # 'Eating eggs *raises* cholesterol': the noun before a relation verb is its subject's
    elif has_form(words[index], "VBD") and (present := _present_relation_after(words, index)) is not None:
        index = present  # 'Immune complex triggered cell death *leads* to ...': two finite verbs need a conjunction
    core = word_core(words[index])
    return index, "aux" if core in NEGATIVE_AUXILIARIES or (
        core in AUXILIARIES and _is_auxiliary(words, index)
    ) else "lexical"


def _present_relation_after(words: list[str], index: int) -> int | None:
    """An auxiliary or a relation verb's -s form after words[index], in the same clause (no conjunction, relative or
    comma between)."""
    for k in range(index + 1, len(words)):
        core = word_core(words[k])
        if (
            core in CONJUNCTIONS
            or core in RELATIVES
            or core in SUBORDINATORS
            or core == "where"
            or words[k - 1].endswith((",", ";"))
        ):
            return None
        if core in NEGATIVE_AUXILIARIES or (core in AUXILIARIES and _is_auxiliary(words, k)):
            return k  # '... triggered cell death *does* not lead to ...'
        if verb_lemma(words[k]) in RELATION_VERBS and has_form(words[k], "VBZ") and not modifies_next(words[k - 1]):
            return k
    return None


def _finite_past(words: list[str], i: int) -> bool:
    """A past-tense form that can only be a verb and does not open a participle phrase ('improved lung function',
    not 'treated with', 'exposed to', 'were treated')."""
    following = word_core(words[i + 1]) if i + 1 < len(words) else ""
    first = lemmas_of(word_core(words[0]))
    after_adverb = i == 1 and "ADV" in first and "NOUN" not in first  # 'Even *impaired* fasting glucose levels are ...'
    return (
        _verb_candidate(words, i, ("VBD",)) == "only"
        and following not in PREPOSITIONS
        and following not in ("as", "")
        and word_core(words[i - 1]) not in BE | HAVE
        and not after_adverb
    )


def _pick_past(words: list[str]) -> int | None:
    """A past-tense main verb, preferably not a participle introducing a phrase ('patients treated with X')."""
    candidates = [
        i
        for i in range(1, len(words))
        if _verb_candidate(words, i, ("VBD",)) and word_core(words[i - 1]) not in BE | HAVE
    ]
    for i in candidates:
        following = word_core(words[i + 1]) if i + 1 < len(words) else ""
        if following not in PREPOSITIONS and following != "as":
            return i
    return candidates[0] if candidates else None


_NOT_THE_CASE = "It is not the case that "


def negate_claim(statement: str) -> str:
    """The statement that `statement` does not hold, with exactly one negation added or removed on its main verb.

    'X increases Y' -> 'X does not increase Y'; 'X is safe' -> 'X is not safe'; 'X can cause Y' -> 'X cannot
    cause Y'; and back ('X does not increase Y' -> 'X increases Y'); 'X has no effect' -> 'X has an effect'.
    A negation inside a subordinate clause is left alone. A statement without a recognisable verb becomes
    "It is not the case that ...".
    """
    text = " ".join(statement.split()).rstrip(".").strip()
    if not text:
        return text
    if text.startswith(_NOT_THE_CASE):
        rest = text[len(_NOT_THE_CASE) :]
        return rest[:1].upper() + rest[1:]
    words = text.split()
    if word_core(words[0]) == "no" and len(words) > 2:  # 'No difference was found' -> 'A difference was found'
        return _drop_no(words, 0)
    found = finite_verb(text)
    if found is None:
        return f"{_NOT_THE_CASE}{text[:1] if keeps_capital(words[0]) else text[:1].lower()}{text[1:]}"
    i, kind = found
    core = word_core(words[i])
    if kind == "aux":
        if core in NEGATIVE_AUXILIARIES:
            return _restore_auxiliary(words, i)
        following = word_core(words[i + 1]) if i + 1 < len(words) else ""
        if following in ("not", "never"):
            return _drop_not(words, i)
        if (no := _predicate_no(words, i)) is not None:
            return _drop_no(words, no)
        if (
            word_core(words[0]) == "there"
            and core in BE
            and i + 1 < len(words)
            and word_core(words[i + 1]) in ("a", "an")
        ):
            return " ".join(
                [*words[: i + 1], replace_core(words[i + 1], "no"), *words[i + 2 :]]
            )  # 'there is no difference'
        new = "cannot" if core == "can" else f"{core} not"
        return " ".join([*words[:i], replace_core(words[i], new), *words[i + 1 :]])
    if (no := _predicate_no(words, i)) is not None:
        return _drop_no(words, no)
    lemma = verb_lemma(words[i]) or core
    tag = "VBZ" if has_form(words[i], "VBZ") and core != lemma else "VBD" if core != lemma else "VBP"
    auxiliary = {"VBZ": "does", "VBP": "do", "VBD": "did"}[tag]
    k = i  # 'solely indicates' -> 'does not solely indicate'
    while k > 1 and set(lemmas_of(word_core(words[k - 1]))) == {"ADV"}:
        k -= 1
    tail = [
        inflected(w, "VBP") if _coordinated_finite(words, i + 1 + j) and _same_clause(words[i : i + 1 + j]) else w
        for j, w in enumerate(words[i + 1 :])
    ]
    return " ".join([*words[:k], f"{auxiliary} not", *words[k:i], replace_core(words[i], lemma), *tail])


def _coordinated_finite(words: list[str], k: int) -> bool:
    """'does not shorten time *and reduce* severity': a verb joined to the negated one takes its bare form too."""
    return (
        word_core(words[k - 1]) in ("and", "or")
        and any(has_form(words[k], t) for t in ("VBZ", "VBD"))
        and not can_be_noun_or_adjective(words[k])
    )


def _predicate_no(words: list[str], verb: int) -> int | None:
    """Index of a 'no' that negates the main verb's object ('has no effect', 'there is no difference')."""
    for j in range(verb + 1, min(len(words), verb + 4)):
        core = word_core(words[j])
        if (
            words[j].strip(PUNCT) == "no"
            and j + 1 < len(words)
            and word_core(words[j + 1]) not in ("longer", "more", "less")
        ):
            return j
        if core in RELATIVES or core in CONJUNCTIONS:
            return None
    return None


def _drop_no(words: list[str], j: int) -> str:
    """'no effect' -> 'an effect', 'no differences' -> 'differences'."""
    head = next(
        (
            w
            for w in words[j + 1 :]
            if "NOUN" in lemmas_of(word_core(w)) and not {"ADJ", "VERB"} & set(lemmas_of(word_core(w)))
        ),
        words[j + 1],
    )
    if is_plural_subject_word(head):
        rest = words[j + 1 :]
        if j == 0:
            rest = [rest[0][:1].upper() + rest[0][1:], *rest[1:]]
        return " ".join([*words[:j], *rest])
    return " ".join([*words[:j], replace_core(words[j], article_for(words[j + 1])), *words[j + 1 :]])


def _drop_not(words: list[str], i: int) -> str:
    """Remove the 'not' after words[i]; under do-support the verb takes the auxiliary's inflection back."""
    core = word_core(words[i])
    rest = words[i + 2 :]
    if core in DO:
        verb_at = next((k for k, w in enumerate(rest[:3]) if verb_lemma(w) and has_form(w, "VB")), None)
        if verb_at is not None:
            lemma = verb_lemma(rest[verb_at]) or word_core(rest[verb_at])
            verb = lemma if DO[core] == "VBP" else inflect_as(lemma, DO[core])
            rest = [*rest[:verb_at], replace_core(rest[verb_at], verb), *rest[verb_at + 1 :]]
            rest = [
                inflected(w, DO[core])
                if k > verb_at and _coordinated_verb(rest, k) and _same_clause(rest[verb_at:k])
                else w
                for k, w in enumerate(rest)
            ]
            return " ".join([*words[:i], *rest])
    return " ".join([*words[: i + 1], *rest])


def _restore_auxiliary(words: list[str], i: int) -> str:
    """'cannot' -> 'can', "doesn't increase" -> 'increases'."""
    core = word_core(words[i])
    base = "can" if core == "cannot" else {"ca": "can", "wo": "will"}.get(core[:-3], core[:-3])
    if base in DO:
        expanded = [*words[:i], replace_core(words[i], base), "not", *words[i + 1 :]]
        return _drop_not(expanded, i)
    return " ".join([*words[:i], replace_core(words[i], base), *words[i + 1 :]])


# ----------------------------------------------------------------------------------- question -> claim
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
    index = _pick(words, 1, tags, auxiliaries=False)
    if index is not None and _before_noun(words, index) and not is_plural_subject_word(words[index - 1]):
        # 'does skin *care* frequency affect ...': a noun modifier; the verb is further on, before the object's first
        # preposition or determiner ('does patella position *influence* ligament balancing in total knee'), unless the
        # word is a relation verb and the later one is not ('does music *influence* stress'); after a plural noun it
        # is the verb ('do tailored interventions *increase* mammography use')
        later = next(
            (
                k
                for k in range(index + 1, _object_start(words, index))
                if _verb_candidate(words, k, tags) and not _before_noun(words, k)
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
            inflected(w, DO[aux]) if k == 0 or (_coordinated_verb(predicate, k) and _same_clause(predicate[:k])) else w
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
    right after a noun and before another, read as an adjective before its noun by _verb_candidate, is the verb
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


def _coordinated_verb(predicate: list[str], k: int) -> bool:
    """'shorten time to peak *and reduce* its severity': a second bare verb joined to the first by 'and'/'or'."""
    return (
        k > 1
        and word_core(predicate[k - 1]) in ("and", "or")
        and has_form(predicate[k], "VB")
        and not can_be_noun_or_adjective(predicate[k])
    )


def _same_clause(words: list[str]) -> bool:
    """No subordinate clause opens among `words` (a coordinated verb after one belongs to it)."""
    return not any(word_core(w) in SUBORDINATORS or w.endswith((",", ";")) or "'" in w for w in words)
