"""Full texts are chunked per section, structured abstracts per label, plain abstracts per sentence."""

from __future__ import annotations

from agent.literature import Record
from agent.scoring.chunking import (
    chunk_document,
    chunk_record,
    chunk_sentences,
    sentence_sections,
    split_sections,
    structured_label,
)

FULL_TEXT = """A study of X
1. Introduction
Cancer is common. It kills many people. We study X here. X is new.
2. Materials and Methods
We measured X in 30 mice. We used PCR.
## Results
X rose by 40%. Y fell. Z stayed. W moved. V was odd.
Discussion
This matters.
References
[1] Smith J. Nature. 2001.
"""


def test_split_sections_on_numbered_plain_and_markdown_headings() -> None:
    names = [name for name, _ in split_sections(FULL_TEXT)]
    assert names == [None, "introduction", "materials and methods", "results", "discussion", "references"]


def test_full_text_windows_never_cross_sections_and_drop_references() -> None:
    chunks = chunk_document(FULL_TEXT)
    assert {c.section for c in chunks} == {None, "introduction", "materials and methods", "results", "discussion"}
    methods = [c for c in chunks if c.section == "materials and methods"]
    assert [c.text for c in methods] == ["We measured X in 30 mice. We used PCR."]
    results = [c.text for c in chunks if c.section == "results"]
    assert results == ["X rose by 40%. Y fell. Z stayed.", "Z stayed. W moved. V was odd."]
    assert not any("Smith" in c.text for c in chunks)


def test_sentence_indices_count_over_the_whole_document() -> None:
    chunks = chunk_document(FULL_TEXT)
    results = next(c for c in chunks if c.section == "results")
    assert (results.sentence_start, results.sentence_end) == (7, 10)


def test_structured_abstract_labels_with_colons() -> None:
    chunks = chunk_document(
        "BACKGROUND: Foo is bar. We ask why. METHODS: We did it. RESULTS: It worked in 40%. CONCLUSIONS: Good."
    )
    assert [(c.section, c.text) for c in chunks] == [
        ("background", "BACKGROUND: Foo is bar. We ask why."),
        ("methods", "METHODS: We did it."),
        ("results", "RESULTS: It worked in 40%."),
        ("conclusions", "CONCLUSIONS: Good."),
    ]


def test_scifact_style_labels_without_colon() -> None:
    sentences = [
        "BACKGROUND Microarrays offer potential.",
        "They are used widely.",
        "RESULTS We propose a model.",
        "It fits.",
    ]
    chunks = chunk_sentences(sentences)
    assert [(c.section, c.sentence_start, c.sentence_end) for c in chunks] == [("background", 0, 2), ("results", 2, 4)]


def test_every_sentence_takes_the_section_that_opened_it() -> None:
    sentences = [
        "Before any label.",
        "BACKGROUND Microarrays offer potential.",
        "They are used widely.",
        "RESULTS We propose a model.",
        "It fits.",
    ]
    assert sentence_sections(sentences) == [None, "background", "background", "results", "results"]
    assert sentence_sections(["One finding.", "Results show two."]) == [None, None]


def test_ordinary_sentence_is_not_a_label() -> None:
    assert structured_label("Results show a clear effect.") is None
    assert structured_label("Results: a clear effect.") == "results"
    assert structured_label("MAIN OUTCOME MEASURES Mortality.") == "main outcome measures"


def test_plain_abstract_falls_back_to_sentences() -> None:
    record = Record(id="1", source="local", title="T", sentences=["One finding.", "Results show two.", "Three."])
    chunks = chunk_record(record)
    assert [(c.text, c.section, c.sentence_start) for c in chunks] == [
        ("One finding.", None, 0),
        ("Results show two.", None, 1),
        ("Three.", None, 2),
    ]
    passage = chunks[1].to_passage(record.id, score=0.5)
    assert (passage.record_id, passage.sentence_index, passage.sentence_end, passage.score) == ("1", 1, None, 0.5)


def test_record_prefers_full_text() -> None:
    record = Record(id="1", source="local", title="T", abstract="Only the abstract.")
    assert any(c.section == "results" for c in chunk_record(record, full_text=FULL_TEXT))


def test_long_sentences_shrink_the_window() -> None:
    long = "word " * 100
    chunks = chunk_sentences([f"BACKGROUND {long}.", f"{long}.", f"{long}."], max_chars=600)
    assert all(c.sentence_end - c.sentence_start == 1 for c in chunks)
    assert [c.sentence_start for c in chunks] == [0, 1, 2]
