"""The project's word lists for polarity: negation cues, direction words, null-result phrases, antonyms, stance flips.

One module so every reader of polarity (the heuristic judge's cues, the trained judge's features, claim
negation for falsifying queries and hypotheses, the court's reading of a negated hypothesis, and the training
data's negation augmentation) works from the same words. Data only: no models, no imports above records.
"""

from __future__ import annotations

import re

from agent.records import Stance

# --- negation and direction cues (agent/judges/cues.py reads texts with them) -----------------------------

NEGATIONS = frozenset(
    """no not never none neither nor without cannot can't don't doesn't didn't isn't aren't wasn't weren't won't
    wouldn't shouldn't couldn't hasn't haven't hadn't nothing nobody fail fails failed failing lack lacks lacked
    lacking absence absent unable unaffected unchanged unrelated independent insufficient""".split()
)
NEGATED_FORMS = frozenset(
    """nonsignificant insignificant ineffective inefficient unassociated uncorrelated unaltered unimpaired
    nonsignificantly unlikely""".split()
)

UP = frozenset(
    """increase increases increased increasing increment elevate elevates elevated elevation higher highest greater
    enhance enhances enhanced enhancement promote promotes promoted promoting upregulate upregulates upregulated
    upregulation raise raises raised raising more augment augments augmented boost boosts boosted improve improves
    improved improvement accelerate accelerates accelerated induce induces induced induction activate activates
    activated activation stimulate stimulates stimulated exacerbate exacerbates exacerbated gain gains rise rises
    rose larger longer better amplify amplifies amplified potentiate potentiates potentiated facilitate facilitates
    facilitated encourage encourages encouraged""".split()
)
DOWN = frozenset(
    """decrease decreases decreased decreasing decline declines declined reduce reduces reduced reducing reduction
    lower lowers lowered lowest less fewer smaller shorter worse diminish diminishes diminished inhibit inhibits
    inhibited inhibition inhibitor suppress suppresses suppressed suppression downregulate downregulates
    downregulated downregulation attenuate attenuates attenuated impair impairs impaired impairment prevent
    prevents prevented prevention block blocks blocked deplete depletes depleted depletion abolish abolishes
    abolished loss lose loses lost weaken weakens weakened slow slows slowed drop drops dropped fall falls fell
    limit limits limited restrict restricts restricted deactivate deactivates deactivated deactivation inactivate
    inactivates inactivated inactivation""".split()
)
NULL_PHRASES = (
    "no significant",
    "not significant",
    "nonsignificant",
    "non significant",
    "insignificant",
    "no difference",
    "no differences",
    "did not differ",
    "do not differ",
    "does not differ",
    "not differ",
    "no association",
    "not associated",
    "no effect",
    "no effects",
    "no impact",
    "no change",
    "no changes",
    "no evidence",
    "no correlation",
    "not correlated",
    "was similar",
    "were similar",
    "similar between",
    "comparable",
    "unchanged",
    "not affect",
    "not alter",
    "not change",
    "not increase",
    "not decrease",
    "not reduce",
    "not improve",
    "no benefit",
    "no relationship",
    "no link",
    "not linked",
)
HEDGES = frozenset("may might could possibly potentially suggest suggests suggested likely unclear unknown".split())

# --- antonyms -------------------------------------------------------------------------------------------

# Antonym pairs used to write falsifying queries and to state a claim's negation.
ANTONYMS = {
    "increase": "decrease",
    "increases": "decreases",
    "increased": "decreased",
    "increasing": "decreasing",
    "higher": "lower",
    "high": "low",
    "more": "less",
    "greater": "smaller",
    "raise": "lower",
    "raises": "lowers",
    "promote": "inhibit",
    "promotes": "inhibits",
    "promoted": "inhibited",
    "activate": "suppress",
    "activates": "suppresses",
    "positive": "negative",
    "positively": "negatively",
    "improve": "worsen",
    "improves": "worsens",
    "improved": "worsened",
    "enhance": "reduce",
    "enhances": "reduces",
    "upregulates": "downregulates",
    "upregulated": "downregulated",
    "benefit": "harm",
    "beneficial": "harmful",
    "protective": "harmful",
    "protects": "harms",
    "risk": "protection",
    "efficient": "inefficient",
    "effective": "ineffective",
    "associated": "unassociated",
    "required": "dispensable",
    "necessary": "unnecessary",
    "sufficient": "insufficient",
    "stable": "unstable",
    "common": "rare",
}
ANTONYMS.update({v: k for k, v in list(ANTONYMS.items()) if v not in ANTONYMS})

# Direction swaps for the training data's negation augmentation (training/dataset.py `negate_statement`), which
# the shipped cross-encoder was trained with. They share ANTONYMS' direction words but follow SciFact's
# annotators where they differ: a reduction's opposite is an increase (not "enhances"), an enhancement's an
# impairment, and the causal verbs (induces / prevents, accelerates / slows) are swapped too; 'lower' goes back to
# 'higher' (ANTONYMS reads it as the opposite of 'raise').
DIRECTION_SWAPS: dict[str, str] = {
    **{
        word: ANTONYMS[word]
        for word in (
            "increases",
            "increased",
            "increase",
            "increasing",
            "higher",
            "greater",
            "more",
            "promotes",
            "promote",
            "inhibits",
            "inhibit",
            "improves",
            "improve",
            "raises",
            "lowers",
            "positively",
            "negatively",
            "upregulates",
            "downregulates",
            "decreases",
            "decreased",
            "decrease",
            "less",
        )
    },
    "reduces": "increases",
    "reduced": "increased",
    "reduce": "increase",
    "enhances": "impairs",
    "enhance": "impair",
    "impairs": "enhances",
    "activates": "inhibits",
    "induces": "prevents",
    "prevents": "induces",
    "suppresses": "promotes",
    "accelerates": "slows",
    "slows": "accelerates",
    "lower": "higher",
}

# A contracted negation and the positive auxiliary that replaces it when the negation is dropped.
CONTRACTED_NEGATIONS = {
    "doesn't": "does",
    "don't": "do",
    "didn't": "did",
    "isn't": "is",
    "aren't": "are",
    "wasn't": "was",
    "weren't": "were",
    "cannot": "can",
}

# Whether a sentence says "not" at all (training/conclusions.py balances its flipped twins on it).
NEGATION_MARKER = re.compile(r"\b(not|no|without|neither|nor|cannot)\b|n't\b", re.I)

# --- stances --------------------------------------------------------------------------------------------

STANCE_FLIP: dict[Stance, Stance] = {"SUPPORT": "CONTRADICT", "CONTRADICT": "SUPPORT", "NEUTRAL": "NEUTRAL"}
"""A stance read for the opposite statement: support of a claim contradicts its negation, and vice versa."""
