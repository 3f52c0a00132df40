r"""The language gate (agent/english/language.py) on every English question and claim the project may read, and on
its foreign questions: how many English ones it refuses (false refusals), how many it answers with a note that they
may not be English, and how many foreign ones it refuses (catches).

    python -m evals.language_gate [--data ../shared/data] [--corpus-words] [--show 20] [--json]

English: the train and dev files of ../shared/data only (SciFact train claims, PubMedQA pqal_dev questions,
HealthVer dev claims and questions and train claims, Check-COVID train and dev claims, CliniFact train and validation
claims, COVID-Fact and Climate-FEVER claims), the project's own questions (evals/data: off-topic, open; tests/data:
misspelled), and, the hardest for a language identifier, the titles of the SciFact, HealthVer and Check-COVID corpora
and questions made of their first two to five words ("Patent ductus arteriosus: are?"). No held-out split is read.
Foreign: tests/data/non_english_questions.jsonl. `--corpus-words` counts the SciFact corpus's words as English for
the note, as the plan does with the backend's corpus. Exit 1 when an English text is refused or a foreign one is not.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agent.english.language import read_language
from benchmarks.cli import print_table
from benchmarks.formats import read_jsonl
from evals.report import print_json

REPO = Path(__file__).resolve().parent.parent
FOREIGN = REPO / "tests" / "data" / "non_english_questions.jsonl"
PREFIX_WORDS = (2, 3, 4, 5)
# The SciFact corpus's titles in German (the abstracts are English): not English, and refused rightly.
GERMAN_TITLES = ("Ansichten von Hausärzten", "Grundlagen der Replikation")


def _csv_column(path: Path, *columns: str) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        return [row[c] for row in csv.DictReader(handle) for c in columns]


def _key(path: Path, key: str) -> list[str]:
    return [str(item.get(key) or "") for item in read_jsonl(path)]


def english_sets(data: Path) -> dict[str, list[str]]:
    """Each English set's distinct texts (stripped, non-empty), by name; a file that is missing is left out."""
    stance = data / "stance"
    covid = stance / "check_covid"
    readers: dict[str, Callable[[], list[str]]] = {
        "scifact_train_claims": lambda: _key(data / "scifact" / "claims_train.jsonl", "claim"),
        "pubmedqa_dev_questions": lambda: [
            v["QUESTION"] for v in json.loads((data / "pubmedqa" / "pqal_dev.json").read_text()).values()
        ],
        "healthver_dev": lambda: _csv_column(data / "healthver" / "healthver_dev.csv", "claim", "question"),
        "healthver_train_claims": lambda: _key(stance / "healthver_multivers" / "claims_train.jsonl", "claim"),
        "check_covid_claims": lambda: [
            *_key(covid / "train" / "covidCheck_train_composed+extracted.json", "claim"),
            *_key(covid / "dev" / "covidCheck_dev_composed+extracted.json", "claim"),
        ],
        "clinifact_claims": lambda: [
            *_csv_column(stance / "clinifact" / "train_set.csv", "claim"),
            *_csv_column(stance / "clinifact" / "validation_set.csv", "claim"),
        ],
        "covidfact_claims": lambda: _key(stance / "covidfact" / "COVIDFACT_dataset.jsonl", "claim"),
        "climate_fever_claims": lambda: _key(stance / "climate_fever" / "climate-fever.jsonl", "claim"),
        "project_questions": lambda: [
            *_key(REPO / "evals" / "data" / "off_topic.jsonl", "question"),
            *_key(REPO / "evals" / "data" / "open_questions.jsonl", "question"),
            *_key(REPO / "tests" / "data" / "misspelled_questions.jsonl", "question"),
        ],
        "corpus_titles": lambda: [
            *_key(data / "scifact" / "corpus.jsonl", "title"),
            *_key(stance / "healthver_multivers" / "corpus.jsonl", "title"),
            *_key(covid / "corpus.json", "title"),
        ],
    }
    sets: dict[str, list[str]] = {}
    for name, read in readers.items():
        try:
            sets[name] = sorted({t.strip() for t in read() if t.strip()})
        except OSError:
            continue
    if "corpus_titles" in sets:
        sets["title_prefix_questions"] = sorted(set(title_prefixes(sets["corpus_titles"])))
    for name in ("corpus_titles", "title_prefix_questions"):
        if name in sets:
            sets[name] = [t for t in sets[name] if not is_german_title(t)]
    return sets


def is_german_title(text: str) -> bool:
    """One of the corpus's German titles or its first words ('Ansichten von?')."""
    words = text.rstrip("?").strip()
    return text.startswith(GERMAN_TITLES) or (
        len(words.split()) > 1 and any(t.startswith(words) for t in GERMAN_TITLES)
    )


def title_prefixes(titles: list[str]) -> Iterator[str]:
    """'Patent ductus arteriosus: lack of ...' -> 'Patent ductus?', 'Patent ductus arteriosus:?', ...: short questions
    full of terms, where a language identifier errs most."""
    for title in titles:
        words = title.rstrip(".").split()
        yield from (" ".join(words[:n]) + "?" for n in PREFIX_WORDS if len(words) > n)


def corpus_words(data: Path) -> Callable[[str], bool]:
    """The SciFact corpus's words (letters, lower case), as the backend's speller knows them."""
    from agent.tools.index.corpus_records import load_corpus
    from agent.tools.index.local_index import word_counts

    return word_counts(load_corpus(data / "scifact" / "corpus.jsonl")).__contains__


def measure(
    sets: dict[str, list[str]], foreign: list[dict], knows: Callable[[str], bool] | None
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The table's rows and the texts behind each miss (refused English, noted English, foreign not refused)."""
    results: dict[str, Any] = {}
    shown: dict[str, list[str]] = {"refused": [], "noted": [], "missed": []}
    for name, texts in sets.items():
        readings = [(text, read_language(text, knows)) for text in texts]
        refused = [t for t, r in readings if r.foreign]
        noted = [t for t, r in readings if r.unsure]
        results[f"{name} ({len(texts)})"] = f"refused {len(refused)}, noted {len(noted)}"
        shown["refused"] += [f"{name}: {t}" for t in refused]
        shown["noted"] += [f"{name}: {t}" for t in noted]
    english = sum(len(texts) for texts in sets.values())
    caught = [item for item in foreign if read_language(item["question"]).language == item["language"]]
    refused_foreign = [item for item in foreign if read_language(item["question"]).foreign]
    shown["missed"] = [item["question"] for item in foreign if not read_language(item["question"]).foreign]
    results |= {
        "english_texts": english,
        "false_refusals": len(shown["refused"]),
        "noted_may_not_be_english": len(shown["noted"]),
        "foreign_questions": len(foreign),
        "foreign_languages": len({item["language"] for item in foreign}),
        "foreign_refused": len(refused_foreign),
        "foreign_named_right": len(caught),
    }
    return results, shown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.language_gate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"), help="the shared datasets folder")
    parser.add_argument("--corpus-words", action="store_true", help="the SciFact corpus's words count as English")
    parser.add_argument("--show", type=int, default=20, metavar="N", help="list up to N texts of each miss")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sets = english_sets(args.data)
    if not sets:
        parser.exit(2, f"{parser.prog}: no English set found under {args.data}\n")
    knows = corpus_words(args.data) if args.corpus_words else None
    results, shown = measure(sets, read_jsonl(FOREIGN), knows)
    print_table(f"Language gate, corpus words {'on' if knows else 'off'}", list(results.items()))
    for what, texts in shown.items():
        for text in texts[: args.show]:
            print(f"{what}: {text}")
    if args.json:
        print_json({**results, "corpus_words": bool(knows)})
    return 1 if results["false_refusals"] or results["foreign_refused"] < results["foreign_questions"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
