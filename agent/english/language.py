"""Is a question written in English? SPARKIT's grammar, stance judge, relevance gate and aspect check read English
only: a question in another language was answered "the retrieved evidence does not address the question" and negated
as "It is not the case that aspirin senkt das Risiko für Darmkrebs". Such a question is refused with a clear reason.

Two signals, both offline and shipped by their packages: py3langid (BSD, langid.py's model) names the language, and
the share of the question's ordinary words that an English word list knows (symspellpy's 82,765-word frequency
dictionary, MIT). Neither suffices alone on one-line questions: langid reads English claims full of Latin and
scientific names as Latin ("Does spontaneous remission occur in polyarteritis nodosa?": la 0.36), and short foreign
questions share words with English ("¿Qué causa la enfermedad de Alzheimer?": half its words are in the list). A
question is called foreign only when langid names another language with probability >= MIN_PROBABILITY and fewer
than ENGLISH_SHARE of its ordinary words are English. Measured on 1,799 English questions and claims (SciFact train
claims, PubMedQA dev questions, HealthVer dev claims and questions, the project's open and off-topic questions): no
misfire, the closest at share 0.67 or langid probability 0.09; all 28 foreign questions of
tests/data/non_english_questions.jsonl caught (the weakest at probability 0.34 and share 0.50).
Names (gene symbols, 'hCG', 'RecQ') and words with digits are left out of the share: they are English in no language.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from agent.errors import InputError

ENGLISH_SHARE = 0.6
MIN_PROBABILITY = 0.3
_WORD = re.compile(r"[^\W\d_]+")
_NAMES = {
    "af": "Afrikaans",
    "ca": "Catalan",
    "cs": "Czech",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "es": "Spanish",
    "fi": "Finnish",
    "fr": "French",
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
    "sv": "Swedish",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "zh": "Chinese",
    "ar": "Arabic",
    "he": "Hebrew",
    "hi": "Hindi",
    "fa": "Persian",
    "vi": "Vietnamese",
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
    """Words of letters, two or more, that are not names written in capitals ('DNA', 'hCG', 'RecQ')."""
    return [w for w in _WORD.findall(text) if len(w) > 1 and not any(c.isupper() for c in w[1:])]


def english_share(text: str) -> float:
    """Share of the text's ordinary words in the English word list (1.0 when it has none)."""
    words = _ordinary_words(text)
    if not words:
        return 1.0
    known = english_words()
    return sum(w.lower() in known for w in words) / len(words)


def foreign_language(text: str) -> str | None:
    """The ISO code of the language `text` is written in when that is clearly not English, else None."""
    if english_share(text) >= ENGLISH_SHARE:
        return None  # most English questions stop here, before langid's model is loaded (about a second)
    with _lock:
        language, probability = _identifier().classify(text)
    return language if language != "en" and probability >= MIN_PROBABILITY else None


def require_english(text: str) -> None:
    """LanguageError (an InputError) when `text` is clearly written in another language than English."""
    if (language := foreign_language(text)) is not None:
        raise LanguageError(language)
