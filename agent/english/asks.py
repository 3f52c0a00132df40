"""What a question asks for, read without a model: the entities and numbers it names, and whether it asks for a cause
or a mechanism (and the statement a mechanism answers)."""

from __future__ import annotations

import re

from agent.english.questions import polar_to_claim

_NUMBER = re.compile(
    r"[<>≤≥~]?\d+(?:[.,]\d+)?\s*(?:%|mg|kg|g|ml|mm|cm|nm|μm|um|mmol|mol|m|s|h|min|days?|years?|fold|x)?", re.I
)
_ENTITY = re.compile(r"\b(?:[A-Z][A-Za-z0-9]*[0-9A-Z][A-Za-z0-9\-]*|[A-Z]{2,}[a-z]?|\d{2,7}-\d{2}-\d)\b")


def entities(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(0) for m in _ENTITY.finditer(text)))


def numbers(text: str) -> list[str]:
    return list(
        dict.fromkeys(m.group(0).strip() for m in _NUMBER.finditer(text) if any(c.isdigit() for c in m.group(0)))
    )


# A question asking for a cause ("What is the main cause of cervical cancer?", "What causes scurvy?", "Why do tumours
# become resistant ...?") is answered by a sentence stating one; "The number of cases of cervical cancer was small"
# shares its words and was the answer line.
_ASKS_CAUSE = re.compile(r"^\s*why\b|\b(?:causes?|caused|causing|aetiology|etiology|origin)\b", re.I)
CAUSAL = re.compile(
    r"\b(?:caus(?:e|es|ed|ing|al|ative)|aetiolog\w*|etiolog\w*|responsible for|due to|attributable to|owing "
    r"to|result(?:s|ed)? from|"
    r"leads? to|led to|induc(?:e|es|ed|ing)|trigger(?:s|ed)?|drives?|driven by|mediated by|associated "
    r"with|risk factors?|"
    r"because|underl(?:ie|ies|ying)|contribut(?:e|es|ed|ing) to)\b",
    re.I,
)


def asks_cause(question: str) -> bool:
    """Whether an open question asks what causes something (its answer must state a cause)."""
    return bool(_ASKS_CAUSE.search(question))


# A "how" question asking for a mechanism or a means ("How does metformin lower blood glucose?", "How is sex
# determined in ...?", "How can TDP-43-induced neuronal loss be prevented?") is answered by a sentence stating one
# ("... by inhibiting hepatic gluconeogenesis"), not the topic's best-scored sentence. "How does X affect / compare
# with / relate to Y?" asks for an effect or a comparison, and "How many / accurate / effective ...?" for an amount.
_ASKS_MECHANISM = re.compile(r"^\s*how\s+(?:do|does|did|is|are|was|were|can|could|may|might)\b", re.I)
_ASKS_EFFECT = re.compile(
    r"\b(?:affect(?:s|ed)?|influenc(?:e|es|ed)|impact(?:s|ed)?|compar(?:e|es|ed)|relat(?:e|es|ed)|differ(?:s|ed)?|change(?:s|d)?)\b",
    re.I,
)
MECHANISM = re.compile(
    r"\b(?:by\s+(?!\d)|through|via|mediat(?:ed|es|ing|ion)|due to|because|owing to|leads? to|led to|result(?:s|ed)? in|"
    r"mechanisms?|pathways?|inhibit(?:s|ed|ing|ion)?|activat(?:es|ed|ing|ion)|suppress(?:es|ed|ing|ion)?|block(?:s|ed|ing)?|"
    r"bind(?:s|ing)?|bound to|depend(?:s|ent)? on|requir(?:es|ed|ing))\b",
    re.I,
)


def asks_mechanism(question: str) -> bool:
    """Whether an open question asks how something comes about (its answer must state a mechanism or a means)."""
    return bool(_ASKS_MECHANISM.search(question)) and not _ASKS_EFFECT.search(question)


def mechanism_statement(question: str) -> str | None:
    """The statement a mechanism question asks the mechanism of: "How does metformin lower blood glucose?" ->
    "Metformin lowers blood glucose" (its subject is what an answer must name); None when it has none."""
    return polar_to_claim(re.sub(r"^\s*how\s+", "", question, flags=re.I)) if asks_mechanism(question) else None
