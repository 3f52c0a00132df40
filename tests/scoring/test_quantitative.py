"""Each quantitative pattern finds its expression, and non-quantitative text earns no weight."""

from __future__ import annotations

import pytest

from agent.scoring.quantitative import KINDS, extract_quantities, has_quantitative_claim, quantitative_weight

CASES = [
    ("p_value", "The difference was significant (p < 0.001).", "p < 0.001"),
    ("p_value", "a trend (P = .03) was seen", "P = .03"),
    ("confidence_interval", "risk was lower (95% CI 0.62-0.88) in the treated arm", "95% CI 0.62-0.88"),
    ("confidence_interval", "the estimate (95% CI, 0.62 to 0.91)", "95% CI, 0.62 to 0.91"),
    ("effect_size", "exposure raised risk (odds ratio = 2.3)", "odds ratio = 2.3"),
    ("effect_size", "mortality was lower (HR 0.75)", "HR 0.75"),
    ("effect_size", "a moderate effect, Cohen's d = 0.45", "Cohen's d = 0.45"),
    ("correlation", "strongly correlated (r = 0.62)", "r = 0.62"),
    ("correlation", "the fit explained most variance (R² = 0.81)", "R² = 0.81"),
    ("plus_minus", "mean age 54.2 ± 7.1 years", "54.2 ± 7.1 years"),
    ("plus_minus", "yield 12 +/- 3 %", "12 +/- 3 %"),
    ("fold_change", "expression increased 3.5-fold in tumours", "3.5-fold"),
    ("fold_change", "a threefold increase in uptake", "threefold"),
    ("sample_size", "in a cohort (n = 1,204)", "n = 1,204"),
    ("sample_size", "we enrolled 312 patients", "312 patients"),
    ("ratio", "a 3:1 ratio of males to females", "3:1"),
    ("range", "doses of 10-20 mg/kg were given", "10-20 mg/kg"),
    ("range", "ages between 5 and 10 years", "between 5 and 10"),
    ("percentage", "mortality fell by 45% overall", "45%"),
    ("percentage", "12.5 percent of cases relapsed", "12.5 percent"),
    ("scientific_notation", "a mutation rate of 1.2 × 10^-5 per site", "1.2 × 10^-5"),
    ("scientific_notation", "an E-value of 3e-8 for the hit", "3e-8"),
    ("value_with_unit", "incubated at 37 °C overnight", "37 °C"),
    ("value_with_unit", "a concentration of 100 µM of drug", "100 µM"),
    ("value_with_unit", "a 2.5 GHz oscillator", "2.5 GHz"),
]


@pytest.mark.parametrize(("kind", "text", "expected"), CASES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(CASES)])
def test_pattern_extracts_expression(kind: str, text: str, expected: str) -> None:
    matches = extract_quantities(text)
    assert [(m.kind, m.text) for m in matches] == [(kind, expected)]
    match = matches[0]
    assert text[match.start : match.end] == expected


def test_every_kind_has_a_case() -> None:
    assert {kind for kind, _, _ in CASES} == set(KINDS)
    assert len(KINDS) >= 10


def test_specific_statistic_absorbs_generic_numbers_inside_it() -> None:
    # The CI's "95%" must not also be reported as a bare percentage.
    kinds = [m.kind for m in extract_quantities("HR 0.75 (95% CI, 0.62 to 0.91; p = 0.002)")]
    assert kinds == ["effect_size", "confidence_interval", "p_value"]


@pytest.mark.parametrize(
    "text",
    [
        "Exercise substantially improves outcomes over prior work.",
        "The study was published in 2001 in Nature.",
        "There were two groups of cells, shown in Figure 3.",
        "IL-17A and CD4 T cells, see Fig. 2A; first described in the 1960s.",
        "",
    ],
)
def test_non_quantitative_text(text: str) -> None:
    assert extract_quantities(text) == []
    assert not has_quantitative_claim(text)
    assert quantitative_weight(text) == 1.0


def test_quantitative_weight_applies_configured_weight() -> None:
    text = "Accuracy rose from 91.7% to 94.2%."
    assert quantitative_weight(text) == 1.5
    assert quantitative_weight(text, weight=2.0) == 2.0
