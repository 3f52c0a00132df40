"""Reading a misspelled question as it was meant: one typo killed an answer.

"Does asprin reduce the risk of colorectal cancer?" retrieved the aspirin trials and then abstained, because the
aspect check (agent/scoring/aspect.py) wanted a record naming "asprin"; "Dose metfromin reduse ...?" was read as an
open question, since "Dose" is not an auxiliary. So before the plan a word of the question that the corpus does not
know is read as the corpus's most frequent word one edit away (two for words of twelve letters or more) with the same
first and last letter, and a first word one edit from a question word ("Dose", "Waht") is read as that word when the
rest then reads as a question. The answer says what was read ("Read 'asprin' as 'aspirin'.").

Conservative on purpose, since a wrong correction changes the question: never touched are words the corpus knows
(in any inflection: their Snowball stem is a corpus word's stem), words of symspellpy's English word list (82,765
words), words shorter than four letters, words with digits or capitals after the first letter (gene symbols, 'hCG'),
capitalised words inside a sentence (names: 'Higgs', 'Calmette'), words with a Greek letter or alone in parentheses
('α-tocopheryl', '(polm)'), and words whose nearest corpus word occurs fewer
than MIN_TARGET_COUNT times. A different last letter is a different word more often than a typo ('neutropenic' is
not 'neutropenia', 'persister' not 'persisted', 'matcha' not 'match'), and so are two edits in a shorter word
('conization' is not 'colonization', 'nodosa' not 'nodes'): on 1,799 correctly meant English questions and claims
(SciFact train claims, PubMedQA dev questions, HealthVer dev, the project's question sets) these rules leave the
corrections in 20 of them: 18 real typos ('assosciated', 'microenviroment', 'reponse', 'peope'), a British spelling
('tumoural' as 'tumoral') and one rare word read as another ('seroma' as 'stroma'). The
dictionary is the backend's corpus (a library has another vocabulary than SciFact): its word counts come from
agent.tools.index.local_index.LocalIndex.word_counts, and the SymSpell index over them is built once, on the first
question with an unknown word, and kept with the backend. The live backend has no corpus vocabulary and corrects only
the question word.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

from agent.english.language import english_words
from agent.records import Correction

MIN_LETTERS = 4
MIN_TARGET_COUNT = 3
LONG_WORD = 12  # from this length two edits are allowed, below it one
_TOKEN = re.compile(r"[\w'’-]+")
_CORRECTABLE = re.compile(r"^[A-Za-z][a-z]+$")
# Words a question starts with: a first word one edit from one of them may be a typo for it ('Dose', 'Waht', 'Hwo').
_DO_AND_MODALS = ("does", "do", "did", "can", "could", "will", "would", "should", "may", "might", "must")
_COPULAS_AND_HAVE = ("is", "are", "was", "were", "has", "have", "had")
_WH = ("what", "which", "who", "whom", "whose", "when", "where", "why", "how")
QUESTION_WORDS = _DO_AND_MODALS + _COPULAS_AND_HAVE + _WH


def _osa(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (a transposition is one edit), -1 beyond `limit` (symspellpy's own)."""
    from symspellpy.editdistance import DistanceAlgorithm, EditDistance

    return EditDistance(DistanceAlgorithm.DAMERAU_OSA).compare(a, b, limit)


_SUFFIXES = ("s", "es", "ed", "d", "ing", "ly")


def _inflections(word: str) -> list[str]:
    """`word` and the forms a regular inflection relates it to: its base without a suffix (with or without a final
    'e') and itself with one."""
    forms = [word, *(word + suffix for suffix in _SUFFIXES)]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            forms += [base, base + "e", *(base + other for other in _SUFFIXES)]
    return forms


class Speller:
    """Corrects a text's unknown words toward the frequent words of one corpus; built lazily, thread-safe."""

    def __init__(self, word_counts: Callable[[], Mapping[str, int]]):
        self._word_counts = word_counts
        self._lock = threading.Lock()
        self._known: frozenset[str] | None = None
        self._symspell: Any = None  # a symspellpy.SymSpell once built (symspellpy ships no types)

    def _build(self) -> frozenset[str]:
        from symspellpy import SymSpell

        counts = self._word_counts()
        symspell = SymSpell(max_dictionary_edit_distance=2)
        for word, count in counts.items():
            if count >= MIN_TARGET_COUNT and len(word) >= MIN_LETTERS and word.isalpha():
                symspell.create_dictionary_entry(word, count)
        self._symspell, self._known = symspell, frozenset(counts)
        return self._known

    def knows(self, word: str) -> bool:
        """Whether the corpus or English knows `word` (lower case) or a regular inflection of it ('phosphorylates'
        where the corpus has 'phosphorylated' or 'phosphorylate')."""
        forms = _inflections(word)
        english = english_words()
        if any(form in english for form in forms):
            return True  # most words of most questions: the corpus's dictionary is not needed (nor built)
        with self._lock:  # built once
            known = self._known if self._known is not None else self._build()
        return any(form in known for form in forms)

    def suggestion(self, word: str) -> str | None:
        """The corpus word `word` (lower case) was meant to be, or None when it is known or nothing is close enough."""
        if len(word) < MIN_LETTERS or self.knows(word):
            return None
        from symspellpy import Verbosity

        distance = 2 if len(word) >= LONG_WORD else 1
        found = [
            s
            for s in self._symspell.lookup(word, Verbosity.ALL, max_edit_distance=distance)
            if s.term[0] == word[0] and s.term[-1] == word[-1]
        ]
        if not found:
            return None
        return min(found, key=lambda s: (s.distance, -s.count)).term

    def correct(self, text: str) -> tuple[str, list[Correction]]:
        """`text` with its unknown words corrected, and the corrections made (each word once)."""
        corrections: dict[str, Correction] = {}

        def fix(match: re.Match[str]) -> str:
            token = match.group(0)
            if any(c.isdigit() for c in token) or not token.replace("-", "").isascii():
                return token  # 'IL-6', 'COVID-19', 'beta2', 'α-tocopheryl': names, not words
            if text[match.start() - 1 : match.start()] == "(" and text[match.end() : match.end() + 1] == ")":
                return token  # '(polm)': an abbreviation being defined
            parts = token.split("-")
            opens_sentence = not text[: match.start()].strip() or text[: match.start()].rstrip()[-1] in ".?!"
            for i, part in enumerate(parts):
                if part[:1].isupper() and not (i == 0 and opens_sentence):
                    continue  # a name: 'Higgs', 'El Nino', 'Bacille Calmette-Guérin'
                if _CORRECTABLE.match(part) and (better := self.suggestion(part.lower())) is not None:
                    parts[i] = better.capitalize() if part[0].isupper() else better
                    corrections.setdefault(part, Correction(original=part, corrected=parts[i]))
            return "-".join(parts)

        return _TOKEN.sub(fix, text), list(corrections.values())


def read_question_word(question: str) -> tuple[str, Correction | None]:
    """'Dose metformin reduce the risk of cancer?' -> 'Does metformin reduce ...': a first word one edit from a question
    word, in a question (it ends with '?'), read as that word when it is no English word ('Waht', 'Deos') or, being one
    ('Dose', 'Doe'), when the rest has the verb that auxiliary asks for ('does X *reduce* Y'). Between two question
    words only 'do' and 'does' are chosen from (by the subject's number); 'Hwo' ('who' or 'how'?) is left alone. The
    question's other words should be corrected first: 'reduse' is no verb."""
    from agent.english.polar import polar_statement

    text = question.strip()
    first, _, rest = text.partition(" ")
    word = first.lower()
    if not text.endswith("?") or not rest or not word.isalpha() or word in QUESTION_WORDS:
        return question, None
    english = word in english_words()
    candidates = [
        (d, q) for q in QUESTION_WORDS if (d := _osa(word, q, 1)) == 1 and (not english or q in _DO_AND_MODALS)
    ]
    body = rest.rstrip("?").strip()
    fitting = [q for _, q in candidates if not english or polar_statement(q, body) is not None]
    if not fitting:
        return question, None
    if len(fitting) > 1 and not set(fitting) <= {"do", "does"}:
        return question, None  # 'Hwo': 'who' or 'how'? Not guessed
    plural_subject = body.split()[0].lower().endswith("s")  # 'Dos statins lower ...' -> 'Do', 'Dos aspirin' -> 'Does'
    chosen = fitting[0] if len(fitting) == 1 else "do" if plural_subject else "does"
    replaced = chosen.capitalize() if first[0].isupper() else chosen
    return f"{replaced} {rest}", Correction(original=first, corrected=replaced)


def read_question(
    question: str, options: list[str], speller: Speller | None
) -> tuple[str, list[str], list[Correction]]:
    """The question and options as meant: unknown words corrected by the backend's speller (when it has one), then
    the question word. Returns them with the corrections made."""
    corrections: list[Correction] = []
    if speller is not None:
        question, made = speller.correct(question)
        corrections += made
        fixed_options = []
        for option in options:
            option, made = speller.correct(option)
            fixed_options.append(option)
            corrections += [c for c in made if c not in corrections]
        options = fixed_options
    question, word = read_question_word(question)
    if word is not None:
        corrections.insert(0, word)
    return question, options, corrections


def read_as_sentence(corrections: list[Correction]) -> str:
    """'Read 'asprin' as 'aspirin'.' for the answer; '' when nothing was corrected."""
    if not corrections:
        return ""
    pairs = [f"'{c.original}' as '{c.corrected}'" for c in corrections]
    listed = pairs[0] if len(pairs) == 1 else f"{', '.join(pairs[:-1])} and {pairs[-1]}"
    return f"Read {listed}."
