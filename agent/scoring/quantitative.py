"""Quantitative-claim extraction: find the numbers a passage reports, so quantitative evidence can weigh more.

Hard comparison questions hinge on measured values ("94.2% vs 91.7%"), not on "substantially better", so
passages carrying them get `quantitative_weight` (seed 000: 1.5x). Each pattern has a `kind` so callers
(and the trace) can say what was found; overlapping matches are resolved in favour of the more specific
kind (a CI beats the bare percentages inside it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUM = r"[-−–]?\d+(?:[.,]\d+)*(?:\s*[x×]\s*10\s*(?:\^|\*\*)?\s*[-−–]?\d+|[eE][-−–]?\d+)?"
_DASH = r"\s*(?:-|−|–|—|to)\s*"
_NUMBER_WORDS = r"(?:two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|fifty|hundred|thousand)"

# Units of two or more characters may follow the number directly ("20mg", "37°C"). A one-letter unit needs a
# space ("5 V", "12 h"), or gene and figure names would read as quantities ("IL-17A", "Fig. 2A", "1960s").
_MULTI_UNITS = (
    r"(?:[kmµμunp]g(?:/(?:kg|m2|m²|d(?:ay)?|l|L|ml|mL|dl|dL))?|g/(?:kg|d(?:ay)?|l|L|dL|m2|m²)|"
    r"[kmµμun]?[mM]ol(?:/[lL])?|[mµμnp]M|[kmµμn]m(?:2|3|²|³)?|m(?:2|3|²|³)|[mµμ][lL]|d[lL]|[kKM]?Da|bp|kb|Mb|nt|aa|"
    r"°\s?[CF]|[kMG]?Hz|[mkM]W|[kM]J|kcal|cal|[m]?eV|[mkM]V|[mµμn]A|[kM]?Pa|mmHg|atm|bar|Gy|mSv|Sv|Bq|"
    r"ms|µs|μs|ns|sec|min|hr|hrs|hours?|days?|weeks?|months?|years?|yr|"
    r"IU|U/[lL]|rpm|ppm|ppb|cells?/[µμm]?[lL]|copies/m[lL]|kg/m2|kg/m²|bpm|beats/min|mg/dL|mmol/L|g/dL)"
)
_SINGLE_UNITS = r"(?:[AKMVWUJLsghml])"
_UNITS = rf"(?:{_MULTI_UNITS}|(?<=\s){_SINGLE_UNITS})"
_NOT_AFTER = r"(?<![\w.\-−–/])"  # a number glued to a word or hyphen ("IL-17A", "CD4") is a name, not a value

_PATTERNS: dict[str, str] = {
    # Order matters only for documentation; overlaps are settled by PRIORITY below.
    "confidence_interval": rf"(?:\d{{2}}\s*%\s*)?(?:CI|confidence "
    rf"interval)\s*[:=,]?\s*[\[(]?\s*{_NUM}\s*%?(?:{_DASH}|\s*,\s*){_NUM}\s*%?\s*[\])]?",
    "p_value": (
        rf"\b[pP]\s*(?:-?\s*value)?\s*(?:of\s*)?(?:[<>=≤≥]|&lt;|&gt;)\s*0?\.\d+"
        rf"(?:\s*[x×]\s*10\s*\^?\s*[-−–]?\d+|[eE][-−–]?\d+)?|\b[pP]\s*(?:[<>=≤≥])\s*{_NUM}"
    ),
    "effect_size": r"\b(?:a?[OHR]R|IRR|SMD|OR|HR|RR|odds ratio|hazard ratio|relative risk|risk "
    r"ratio|Cohen'?s\s*d|Hedges'?\s*g|effect "
    rf"size)\s*(?:\(\s*\d{{2}}\s*%\s*CI\s*\))?\s*(?:[:=,]|of|was|is)?\s*{_NUM}",
    "correlation": rf"\b(?:r|R|rho|ρ|R2|R²|r2|r²|τ|tau)\s*(?:[=≈]|&#61;)\s*{_NUM}",
    "plus_minus": rf"{_NUM}\s*(?:±|\+/-|\+-|\+/−)\s*{_NUM}\s*(?:{_UNITS}\b|%)?",
    "fold_change": (
        rf"(?:{_NUM}|{_NUMBER_WORDS})\s*-?\s*(?:fold|times)\b|(?:{_NUMBER_WORDS})fold\b"
        rf"|\b{_NUM}\s*[x×](?=\s+(?:higher|lower|more|less|increase|decrease|greater|faster|slower))"
    ),
    "sample_size": (
        r"\b[nN]\s*=\s*\d+(?:,\d{3})*\b|\b\d+(?:,\d{3})*\s+(?:patients|participants|subjects|individuals|women|men|children"
        r"|adults|cases|controls|mice|rats|animals|volunteers|infants|respondents|samples|cohorts?)\b"
    ),
    "ratio": rf"\b\d+(?:\.\d+)?\s*:\s*\d+(?:\.\d+)?\b(?!\s*(?:am|pm))|\bratio\s+(?:of\s+)?{_NUM}",
    "range": (
        rf"(?:between\s+{_NUM}\s*%?\s*(?:{_UNITS}\b)?\s*and\s+{_NUM}"
        rf"|{_NOT_AFTER}{_NUM}\s*(?:{_DASH}){_NUM}\s*(?:%|{_UNITS}\b))"
    ),
    "percentage": rf"{_NUM}\s*(?:%|percent\b|per cent\b)",
    "scientific_notation": r"\b\d+(?:\.\d+)?\s*[x×]\s*10\s*(?:\^|\*\*)?\s*[-−–]?\d+\b|\b\d+(?:\.\d+)?[eE][-−–]?\d+\b",
    "value_with_unit": rf"{_NOT_AFTER}{_NUM}\s*{_UNITS}(?![\w])",
}

# Higher wins when two matches overlap: the more specific statistic absorbs the generic numbers inside it.
PRIORITY: dict[str, int] = {
    "confidence_interval": 10,
    "p_value": 9,
    "effect_size": 8,
    "correlation": 7,
    "plus_minus": 6,
    "fold_change": 5,
    "sample_size": 5,
    "range": 4,
    "ratio": 4,
    "scientific_notation": 3,
    "percentage": 2,
    "value_with_unit": 1,
}

_COMPILED = {kind: re.compile(pattern) for kind, pattern in _PATTERNS.items()}
KINDS: tuple[str, ...] = tuple(_PATTERNS)


@dataclass(frozen=True)
class QuantMatch:
    """One quantitative expression found in a text."""

    kind: str
    text: str
    start: int
    end: int


def _balance(span: str) -> str:
    """Drop a closing bracket the match took without its opener (the '...0.88)' of '(95% CI 0.62-0.88)')."""
    for opener, closer in ("()", "[]"):
        if span.endswith(closer) and span.count(closer) > span.count(opener):
            span = span[:-1].rstrip()
    return span


def extract_quantities(text: str) -> list[QuantMatch]:
    """Every quantitative expression in `text`, non-overlapping, in reading order."""
    if not text:
        return []
    found: list[QuantMatch] = []
    for kind, pattern in _COMPILED.items():
        for match in pattern.finditer(text):
            span = _balance(match.group(0).strip())
            if span and (kind == "fold_change" or any(ch.isdigit() for ch in span)):
                start = match.start() + (len(match.group(0)) - len(match.group(0).lstrip()))
                found.append(QuantMatch(kind, span, start, start + len(span)))
    # Keep the highest-priority, then longest, match among overlapping ones.
    found.sort(key=lambda m: (-PRIORITY[m.kind], -(m.end - m.start), m.start))
    kept: list[QuantMatch] = []
    for quant in found:
        if all(quant.end <= k.start or quant.start >= k.end for k in kept):
            kept.append(quant)
    return sorted(kept, key=lambda m: m.start)


def has_quantitative_claim(text: str) -> bool:
    return bool(extract_quantities(text))


def quantitative_weight(text: str, weight: float = 1.5) -> float:
    """`weight` when the text reports at least one quantity, else 1.0 (seed 000's 1.5x anchor weighting)."""
    return weight if has_quantitative_claim(text) else 1.0
