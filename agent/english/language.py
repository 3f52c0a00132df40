"""Is a question written in English? SPARKIT's grammar, stance judge, relevance gate and aspect check read English
only: a question in another language was answered "the retrieved evidence does not address the question" and negated
as "It is not the case that aspirin senkt das Risiko für Darmkrebs". Such a question is refused with a clear reason,
but only when the gate is sure: refusing a user's English question is worse than answering a foreign one badly, and
"Xanthogranulomatous cholecystitis: a premalignant condition?" was refused as French (langid: fr 0.32; half its words
unknown to the English list).

Two signals, both offline and shipped by their packages: py3langid (BSD, langid.py's model) ranks the languages, and
the share of the question's ordinary words that English knows: symspellpy's 82,765-word list (MIT), the scientific
vocabulary agent/english/science.py reads from how terms are made, and, in the plan, the words of the corpus the
backend searches. A question is refused as foreign (`Reading.foreign`) only when all of these hold:
- the identifier is confident it is not English: English's probability below MAX_ENGLISH_PROBABILITY, and another
  language than Latin named with at least MIN_PROBABILITY (Latin is the language of anatomy and taxonomy, not of
  questions: "Patent ductus arteriosus" reads as Latin 0.87, "Caenorhabditis elegans" 0.38);
- few of its words are English: a share below ENGLISH_SHARE, and at least MIN_FOREIGN_WORDS words that are neither
  English nor scientific (one unknown name does not make a language: "Riesz pyramids?" reads as Polish 0.34).
Where the identifier names another language (Latin included) and fewer than ENGLISH_SHARE of the words are English
but the rest does not hold, the gate is unsure (`Reading.unsure`): the question is answered, with a note saying it may
not be English (`language_note`).

Measured by `python -m evals.language_gate` (evals/README.md has the numbers): no refusal among 10,885 English
questions and claims of the project's train and dev sets, 5,834 corpus titles and 21,593 questions made of their first
words (the SciFact corpus's two German titles, refused rightly, left out), 11 of them noted (2 with the corpus's words);
all 72 foreign questions of tests/data (26 languages) refused. Names ('hCG', 'RecQ') and words with digits are left
out of the share: they are English in no language.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from agent.english.science import is_scientific
from agent.errors import InputError

ENGLISH_SHARE = 0.6
MIN_PROBABILITY = 0.3
MAX_ENGLISH_PROBABILITY = 0.02
MIN_FOREIGN_WORDS = 2
LATIN = "la"
_WORD = re.compile(r"[^\W\d_]+")
_NAMES = {
    "af": "Afrikaans",
    "ar": "Arabic",
    "ca": "Catalan",
    "cs": "Czech",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "es": "Spanish",
    "fa": "Persian",
    "fi": "Finnish",
    "fr": "French",
    "he": "Hebrew",
    "hi": "Hindi",
    "hu": "Hungarian",
    "id": "Indonesian",
    "it": "Italian",
    "ja": "Japanese",
    "ko": "Korean",
    "la": "Latin",
    "nl": "Dutch",
    "no": "Norwegian",
    "pl": "Polish",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sk": "Slovak",
    "sv": "Swedish",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "vi": "Vietnamese",
    "zh": "Chinese",
}
_lock = threading.Lock()


class LanguageError(InputError):
    """The question is not in English; `language` is its ISO 639-1 code."""

    def __init__(self, language: str):
        self.language = language
        super().__init__(
            f"SPARKIT reads questions in English, and this one reads as {language_name(language)}: "
            "please ask it in English"
        )


def language_name(code: str) -> str:
    return f"{_NAMES[code]} ({code})" if code in _NAMES else f"language '{code}'"


@lru_cache(maxsize=1)
def english_words() -> dict[str, int]:
    """symspellpy's English word list (word -> frequency in Google Books), lower case."""
    import symspellpy

    words: dict[str, int] = {}
    path = Path(symspellpy.__file__).parent / "frequency_dictionary_en_82_765.txt"
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            word, _, count = line.strip().partition(" ")
            if word and count.isdigit():
                words[word] = int(count)
    return words


@lru_cache(maxsize=1)
def _identifier() -> Any:  # a py3langid LanguageIdentifier (py3langid ships no types)
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _ordinary_words(text: str) -> list[str]:
    """Words of letters, two or more, that are not names written in capitals ('DNA', 'hCG', 'RecQ'). A script written
    without spaces (Chinese, Japanese) gives one word per character."""
    words = []
    for word in _WORD.findall(text):
        if any(ord(c) >= 0x3000 for c in word):
            words += list(word)
        elif len(word) > 1 and not any(c.isupper() for c in word[1:]):
            words.append(word)
    return words


def is_english_word(word: str) -> bool:
    """Whether English (its word list or its scientific vocabulary) knows `word` (lower case)."""
    known = english_words()
    return word in known or is_scientific(word, known.__contains__)


@dataclass(frozen=True)
class Reading:
    """What the gate read of a text: the identifier's likeliest language other than English and Latin (its code and
    probability among those), English's probability, its first choice of all (Latin included) and that one's
    probability, the share of the text's ordinary words English knows and how many it does not."""

    language: str
    probability: float
    english_probability: float
    first: str
    first_probability: float
    share: float
    unknown: int

    @property
    def foreign(self) -> bool:
        """Refused: the identifier is confident, and few of the words are English."""
        return (
            self.english_probability < MAX_ENGLISH_PROBABILITY
            and self.probability >= MIN_PROBABILITY
            and self.share < ENGLISH_SHARE
            and self.unknown >= MIN_FOREIGN_WORDS
        )

    @property
    def unsure(self) -> bool:
        """Answered with a note: the identifier's first choice is another language (Latin too) and few words are
        English, but not all that refusing asks for holds."""
        named = self.first != "en" and self.first_probability >= MIN_PROBABILITY
        return named and self.share < ENGLISH_SHARE and not self.foreign


ENGLISH = Reading("en", 0.0, 1.0, "en", 1.0, 1.0, 0)


def read_language(text: str, knows: Callable[[str], bool] | None = None) -> Reading:
    """The gate's reading of `text`; `knows` says which more words count as English (the corpus's, in the plan)."""
    words = _ordinary_words(text)
    unknown = sum(not (is_english_word(w.lower()) or (knows is not None and knows(w.lower()))) for w in words)
    share = 1 - unknown / len(words) if words else 1.0
    if share >= ENGLISH_SHARE:
        return ENGLISH  # most English questions stop here, before langid's model is loaded (about a second)
    with _lock:
        ranked = dict(_identifier().rank(text))
    first = max(ranked, key=ranked.__getitem__)
    first_probability = ranked[first]
    english, latin = ranked.pop("en", 0.0), ranked.pop(LATIN, 0.0)
    language = max(ranked, key=ranked.__getitem__)
    probability = ranked[language] / (1 - latin) if latin < 1 else 0.0  # as if Latin were not a choice
    return Reading(language, probability, english, first, first_probability, share, unknown)


def foreign_language(text: str) -> str | None:
    """The ISO code of the language `text` is written in when that is surely not English, else None."""
    reading = read_language(text)
    return reading.language if reading.foreign else None


def require_english(text: str) -> None:
    """LanguageError (an InputError) when `text` is surely written in another language than English."""
    if (language := foreign_language(text)) is not None:
        raise LanguageError(language)


def language_note(text: str, knows: Callable[[str], bool] | None = None) -> str | None:
    """One line for the answer when the gate is unsure that `text` is English (None when it is): the question was
    answered, and may have been misread."""
    reading = read_language(text, knows)
    if not reading.unsure:
        return None
    named = language_name(reading.first)
    return f"The question may not be in English (it reads partly as {named}): the answer may have misread it."
