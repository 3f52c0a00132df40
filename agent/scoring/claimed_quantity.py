"""The quantity reader: does the finding state the number the claim states, or another one?

A claim that names a quantity ("the risk is 1 in 5 million", "reduces mortality by 30%") is settled by its number,
not by its topic: an abstract that reports "1/2000" on the same outcome reads as strong support sentence by sentence
(same subject, same direction words) and contradicts the claim. The stance readers do not compare numbers, so this
reader does, by rule: each side's values normalised (percentages to fractions, "1 in N" and "1/N" to rates, "N
million" to N x 10^6), a match within 10 % relative. Its three numbers (the claim names a quantity; the evidence
states it; the evidence states only others) are inputs of the verdict model (agent/verdict/features.py), kept only
where they pay out of fold.
"""

from __future__ import annotations

import re

_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_NUMBER = r"\d+(?:[.,]\d+)*"
_QUANTITY = re.compile(
    rf"(?P<one>{_NUMBER})\s*(?:in|out of|per)\s*(?:every\s*)?(?P<den>{_NUMBER})\s*"
    rf"(?P<denscale>thousand|million|billion)?"
    rf"|(?P<num>{_NUMBER})\s*/\s*(?P<den2>{_NUMBER})(?!\s*/)"
    rf"|(?P<value>{_NUMBER})\s*(?P<unit>%|percent|per cent|-?fold|thousand|million|billion)?",
    re.IGNORECASE,
)
_GLUED = re.compile(r"[A-Za-z\-]$")  # a number glued to a name (IL-6, CD4, H1N1) is part of the name
TOLERANCE = 0.10


def _number(text: str) -> float | None:
    try:
        return (
            float(text.replace(",", ""))
            if text.count(",") and len(text.split(",")[-1]) == 3
            else float(text.replace(",", "."))
        )
    except ValueError:
        return None


def quantities(text: str) -> list[float]:
    """The values a text states, normalised: '1 in 5 million' -> 2e-7, '30%' -> 0.3, '1/2000' -> 5e-4; years
    (1900-2099 without a unit) and numbers glued to names are left out."""
    values: list[float] = []
    for match in _QUANTITY.finditer(text):
        if match.start() and _GLUED.search(text[: match.start()]):
            continue
        if match.group("one"):
            one, den = _number(match.group("one")), _number(match.group("den"))
            scale = _SCALE.get((match.group("denscale") or "").lower(), 1.0)
            if one is not None and den:
                values.append(one / (den * scale))
        elif match.group("num"):
            num, den = _number(match.group("num")), _number(match.group("den2"))
            if num is not None and den:
                values.append(num / den)
        else:
            value, unit = _number(match.group("value")), (match.group("unit") or "").lower()
            if value is None:
                continue
            if unit in ("%", "percent", "per cent"):
                values.append(value / 100)
            elif unit in _SCALE:
                values.append(value * _SCALE[unit])
            elif not unit and value.is_integer() and 1900 <= value <= 2099:
                continue
            else:
                values.append(value)
    return values


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-12)


def quantity_reading(claim: str, evidence: list[str]) -> dict[str, float]:
    """`quantity_claimed`: the claim names a value; `quantity_stated`: the evidence states one of the claim's values;
    `quantity_other`: the claim names a value, the evidence states values and none of them is the claim's."""
    claimed = quantities(claim)
    stated = [v for text in evidence for v in quantities(text)]
    matched = any(_close(c, s) for c in claimed for s in stated)
    return {
        "quantity_claimed": float(bool(claimed)),
        "quantity_stated": float(matched),
        "quantity_other": float(bool(claimed) and bool(stated) and not matched),
    }
