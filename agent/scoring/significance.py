"""Does a passage report only statistically non-significant results?

"Intention-to-treat analysis ... showed a hazard ratio of 0·63 (95% CI 0·35-1·13, p=0·12)" reads to a stance
judge like support for "aspirin reduces colorectal cancer", and its authors may word it so; a scientist reads an
estimate whose interval spans no effect as no demonstrated effect. This module finds the p-values and confidence
intervals a passage states and says whether every one of them is non-significant (p >= 0.05, or an interval that
contains the null: 1 for a ratio, 0 for a difference). A passage with no statistics, or with any significant one,
is not "only non-significant". Pure and conservative: an interval whose scale it cannot tell is not counted.
`states_null_result` reads the wider null result a verdict weighs against a claim of an effect: those statistics, a
null phrase or a negated verb of effect, never beside a significant statistic.
"""

from __future__ import annotations

import re

from agent.english.lexicon import NEGATION_MARKER, NULL_PHRASES

ALPHA = 0.05
_NUM = r"[-−–]?\d*[.·]?\d+"
# "p = 0.12", "P<.001", "p-value of 0.3", "P = 2.5 × 10−11" (the exponent marks a tiny p), "P=NS"
_P_VALUE = re.compile(
    r"\b[pP]\s*(?:-?\s*values?\s*(?:of|was|were)?\s*)?(=|<|>|≤|≥|<=|>=|&lt;|&gt;)\s*(\d*[.·]?\d+)(\s*[x×]\s*10|[eE][-−–])?"
)
_P_NOT_SIGNIFICANT = re.compile(r"\b[pP]\s*=\s*N\.?S\.?(?!\w)|\(\s*N\.?S\.?\s*\)")
_INTERVAL = re.compile(
    rf"(?:\bCI|confidence interval)\s*(?:\[\s*CI\s*\])?\s*[:=,]?\s*[\[(]?\s*({_NUM})\s*(?:to|,|[-−–—])\s*({_NUM})"
)
# The estimate an interval belongs to is the one named last before it: a ratio (null 1) or a difference (null 0).
_RATIO = re.compile(r"\b(?:a?HR|a?OR|a?RR|IRR|SHR|RRR)\b|\b(?i:hazard|odds|relative risk|risk ratio|rate ratio|ratio)")
_DIFFERENCE = re.compile(
    r"\b(?:MD|WMD|SMD)\b|(?i:\bdifferences?\b|\bchanges?\b|\bmean\b|\bbeta\b|β|\bcoefficient|\bslope|\bpoints?\b)"
)


def _number(text: str) -> float:
    return float(text.replace("·", ".").replace("−", "-").replace("–", "-"))


def _p_values(text: str) -> tuple[int, int]:
    """(significant, non-significant) p-values stated in the text."""
    significant = non_significant = 0
    for op, value, exponent in _P_VALUE.findall(text):
        p = _number(value)
        if exponent:  # "× 10−11": far below any threshold
            significant += 1
        elif p > 1:
            continue  # not a p-value ("P = 25 patients")
        elif op in ("<", "≤", "<=", "&lt;"):
            significant += p <= ALPHA
        elif op in (">", "≥", ">=", "&gt;"):
            non_significant += p >= ALPHA
        else:
            significant += p < ALPHA
            non_significant += p >= ALPHA
    return significant, non_significant + len(_P_NOT_SIGNIFICANT.findall(text))


def _intervals(text: str) -> tuple[int, int]:
    """(excluding the null, containing it) among the confidence intervals whose scale the text names."""
    excluding = containing = 0
    for match in _INTERVAL.finditer(text):
        low, high = sorted((_number(match.group(1)), _number(match.group(2))))
        before = text[: match.start()]
        ratio, difference = (
            max((m.end() for m in kind.finditer(before)), default=-1) for kind in (_RATIO, _DIFFERENCE)
        )
        if low < 0 or difference > ratio:
            null = 0.0
        elif ratio > difference:
            null = 1.0
        else:
            continue  # no estimate named: its scale is unknown
        if low <= null <= high:
            containing += 1
        else:
            excluding += 1
    return excluding, containing


def only_non_significant(text: str) -> bool:
    """True when the text states at least one statistic and every one it states is non-significant."""
    p_significant, p_not = _p_values(text)
    ci_significant, ci_not = _intervals(text)
    return p_significant + ci_significant == 0 and p_not + ci_not > 0


def states_significance(text: str) -> bool:
    """True when the text states at least one significant statistic (p < 0.05, or an interval that excludes the
    null): a finding reported as shown, where `only_non_significant` is one reported as not shown."""
    return _p_values(text)[0] + _intervals(text)[0] > 0


# A predicate that denies the effect in one word ("is unrelated to", "fails to reduce", "is ineffective"); not the
# wider NEGATIONS, whose "absence" or "independent" name things ("an independent predictor of") as often.
_NULL_PREDICATE = re.compile(
    r"\b(?:unrelated|unaffected|unchanged|unassociated|uncorrelated|unaltered|ineffective|fail(?:s|ed)? to"
    r"|(?:is|are|was|were|remains?|remained) (?:\w+ "
    r")?(?:similar|equivalent|equal|identical))\b",
    re.I,
)


def claims_an_effect(statement: str) -> bool:
    """A statement of an effect or association ("aspirin reduces the risk"), not of its absence ("does not", "no
    difference", "similar", "is unrelated to", "fails to"): the kind that non-significant statistics fail to show."""
    lowered = statement.lower()
    return (
        bool(statement)
        and not NEGATION_MARKER.search(statement)
        and not _NULL_PREDICATE.search(statement)
        and not any(phrase in lowered for phrase in NULL_PHRASES)
    )


# A null result stated with a verb: "did not improve", "was not significantly reduced", "failed to lower". Not every
# negated direction word: "results were not attenuated when ... were added" (a robustness check) states no null result
_NULL_VERB = re.compile(
    r"\b(?:did|does|do|was|were|is|are|has|have|had)\s+not\s+(?:significantly\s+|substantially\s+)?"
    r"(?:improve|reduce|increase|decrease|lower|raise|change|affect|alter|prevent|predict|differ|influence|modify)"
    r"|\bfail(?:s|ed)?\s+to\s+(?:improve|reduce|increase|decrease|lower|raise|change|affect|alter|prevent|show)",
    re.I,
)


def states_null_result(text: str) -> bool:
    """A finding stated as no effect: a null phrase ("no significant difference", "was not associated"), a negated
    verb of effect ("did not improve"), or statistics that are all non-significant; never a passage that states a
    significant statistic ("results were similar ... HR 2.36; 95% CI 1.57-3.55" replicates an effect)."""
    if states_significance(text):
        return False
    lowered = text.lower()
    return any(p in lowered for p in NULL_PHRASES) or bool(_NULL_VERB.search(text)) or only_non_significant(text)
