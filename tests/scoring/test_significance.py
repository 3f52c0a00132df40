"""Which passages report only non-significant results (agent/scoring/significance.py)."""

from __future__ import annotations

import pytest

from agent.scoring.significance import only_non_significant


@pytest.mark.parametrize(
    "text",
    [
        "Intention-to-treat analysis showed a hazard ratio (HR) of 0·63 (95% CI 0·35-1·13, p=0·12).",  # middle dots
        "relative risk 0.52; 95% confidence interval [CI] 0.24-1.12, p = 0.09",
        (
            "the mean SF-12 mental component score (surgical group: "
            "1.28 points lower [95% CI, -3.80 to 1.23 points]; P = .32)"
        ),
        "After adjusting for cluster the difference was not significant (difference -0.02, 95% confidence "
        "interval -0.22 to 0.17).",
        "The 1-year incidence of SAEs was 33.3% in one group and 53.3% in the other (P = .46).",
        "Adherence did not differ between arms (P = NS).",
    ],
)
def test_only_non_significant_statistics(text):
    assert only_non_significant(text)


@pytest.mark.parametrize(
    "text",
    [
        "Mortality was lower with the drug (HR 0.71, 95% CI 0.60-0.84).",
        "Metformin reduced HbA1c by 0.8% (95% CI 0.5 to 1.1; P<0.001).",
        "allele-specific odds ratio (OR) = 2.5, P = 2.5 × 10−11",  # a p-value in scientific notation is tiny
        # one significant estimate among non-significant ones: not "only non-significant"; "or maternal recall" is no OR
        "pooled relative risk [RR] per one standard deviation [SD] [= 0.5 kg] increment: 1.06; 95% confidence "
        "interval [CI] "
        "1.02-1.09, parental recall (1.02; 95% CI 0.99-1.05), or "
        "maternal recall during adulthood (0.98; 95% CI 0.95-1.01)",
        "Metformin users had fewer incident cancers.",  # no statistic at all
        "The two groups were compared (95% CI 0.2-1.4).",  # an interval of no named estimate: its null is unknown
    ],
)
def test_significant_or_unreadable_statistics(text):
    assert not only_non_significant(text)


@pytest.mark.parametrize(
    "statement, effect",
    [
        ("Aspirin reduces the risk of colorectal cancer", True),
        ("CRP is an independent predictor of death", True),  # "independent" names a kind of predictor here
        ("Aspirin does not reduce the risk of colorectal cancer", False),
        ("There is no difference in mortality between the arms", False),
        ("Hypothalamic glutamate neurotransmission is unrelated to energy balance", False),
        ("Metformin fails to reduce body weight", False),
        ("Cognitive behavioral therapy is ineffective for insomnia", False),
        ("Risk-adjusted mortality rates are similar in teaching and non-teaching hospitals", False),
        ("Outcomes were broadly equivalent between the arms", False),
    ],
)
def test_a_claim_of_an_effect_is_told_from_a_claim_of_none(statement, effect):
    from agent.scoring.significance import claims_an_effect

    assert claims_an_effect(statement) is effect
