"""A small grammar of the predicate: a statement's finite verb, for yes/no questions as statements (agent.english.polar)
and a statement's negation (agent.english.negation).

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
    RELATION_VERBS,
    RELATIVES,
    SUBORDINATORS,
    can_be_noun_or_adjective,
    has_form,
    is_plural_subject_word,
    lemmas_of,
    modifies_next,
    verb_lemma,
    word_core,
)


def _opens_with_participle(words: list[str], i: int) -> bool:
    """'*Approved* doctors ...', '*Increased* expression ...': a sentence-initial participle modifies its noun."""
    return i == 1 and word_core(words[0]).endswith("ed") and has_form(words[0], "VBN")


_DEGREE_WORDS = frozenset("more less most least much".split())  # 'does time pass *more* slowly': not a compound's noun


def before_noun(words: list[str], i: int) -> bool:
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


def verb_candidate(words: list[str], i: int, tags: tuple[str, ...], agree: bool = True) -> str | None:
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


def pick_verb(words: list[str], start: int, tags: tuple[str, ...], auxiliaries: bool, agree: bool = True) -> int | None:
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
            else verb_candidate(words, i, tags, agree)
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
    index = pick_verb(words, 1, ("VBZ", "VB"), auxiliaries=True)
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
        index = pick_verb(words, 1, ("VBZ", "VB"), auxiliaries=True, agree=False)
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
        verb_candidate(words, i, ("VBD",)) == "only"
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
        if verb_candidate(words, i, ("VBD",)) and word_core(words[i - 1]) not in BE | HAVE
    ]
    for i in candidates:
        following = word_core(words[i + 1]) if i + 1 < len(words) else ""
        if following not in PREPOSITIONS and following != "as":
            return i
    return candidates[0] if candidates else None


def coordinated_verb(predicate: list[str], k: int) -> bool:
    """'shorten time to peak *and reduce* its severity': a second bare verb joined to the first by 'and'/'or'."""
    return (
        k > 1
        and word_core(predicate[k - 1]) in ("and", "or")
        and has_form(predicate[k], "VB")
        and not can_be_noun_or_adjective(predicate[k])
    )


def same_clause(words: list[str]) -> bool:
    """No subordinate clause opens among `words` (a coordinated verb after one belongs to it)."""
    return not any(word_core(w) in SUBORDINATORS or w.endswith((",", ";")) or "'" in w for w in words)
