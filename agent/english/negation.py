"""A statement's negation: the claim that it does not hold, with one negation added or removed on its main verb
(agent.english.grammar finds the verb)."""

from __future__ import annotations

from agent.english.grammar import coordinated_verb, finite_verb, same_clause
from agent.english.words import (
    BE,
    CONJUNCTIONS,
    DO,
    NEGATIVE_AUXILIARIES,
    PUNCT,
    RELATIVES,
    article_for,
    can_be_noun_or_adjective,
    has_form,
    inflect_as,
    inflected,
    is_plural_subject_word,
    keeps_capital,
    lemmas_of,
    replace_core,
    verb_lemma,
    word_core,
)

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
        inflected(w, "VBP") if _coordinated_finite(words, i + 1 + j) and same_clause(words[i : i + 1 + j]) else w
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
                if k > verb_at and coordinated_verb(rest, k) and same_clause(rest[verb_at:k])
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
