"""In-domain contrast pairs: a labelled rationale edited so that one reading skill decides its label.

The stance judge learned from rationales, where a passage on the claim's topic is nearly always evidence for or
against it, so it reads "on the topic" as "for the claim". Each edit below keeps the topic and changes what the
sentence says, with the label a careful reader would give the edited pair:

| edit | side edited | from | to |
|---|---|---|---|
| `direction` | evidence: its one direction word swapped (increased -> decreased, higher -> lower) | SUPPORT |
CONTRADICT | | `direction` | evidence: the same swap where it disagreed with the claim's direction | CONTRADICT |
SUPPORT | | `null` | evidence: "significantly reduced" -> "did not significantly reduce" / "was not significantly
reduced" | SUPPORT | CONTRADICT | | `hedge` | evidence wrapped as an aim, hypothesis, proposal or open question |
SUPPORT / CONTRADICT | NEUTRAL | | `comparison` | claim: its two compared arms swapped ("A ... than B" -> "B ... than
A") | SUPPORT | CONTRADICT | | `subject` | claim: its subject turned into its absence ("Smoking increases X" ->
"Cessation of smoking increases X") | SUPPORT | CONTRADICT |

Only SUPPORT is flipped where the flip of a CONTRADICT is not determined (a refuted "A beats B" may be a tie, so
"B beats A" need not hold). Pairs of the `heldout` split are never edited. `python -m training.contrast` prints
counts and examples per edit.
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from dataclasses import replace

from training.dataset import StancePair

# Direction words of findings and their opposites (both ways). Deliberately narrow: 'more' and 'less' also
# count things ("more than 50 patients"), so they are not swapped in evidence.
_ONE_WAY = {
    "increased": "decreased",
    "increase": "decrease",
    "increases": "decreases",
    "increasing": "decreasing",
    "higher": "lower",
    "greater": "smaller",
    "elevated": "reduced",
    "improved": "worsened",
    "improves": "worsens",
    "enhanced": "impaired",
    "promoted": "inhibited",
    "upregulated": "downregulated",
    "raised": "lowered",
    "reduced": "increased",
    "reduces": "increases",
    "reduce": "increase",
    "reduction": "increase",
    "fewer": "more",
    "shorter": "longer",
    "accelerated": "slowed",
    "activated": "suppressed",
}
EVIDENCE_SWAPS: dict[str, str] = {**_ONE_WAY, **{v: k for k, v in _ONE_WAY.items() if v not in _ONE_WAY}}
UP_WORDS = frozenset(
    """increased increase increases increasing higher greater elevated improved improves enhanced promoted
    upregulated raised more longer accelerated activated promotes promote improve enhances enhance raises raise
    induces induce stimulates activates""".split()
)
DOWN_WORDS = frozenset(
    """decreased decrease decreases decreasing lower smaller reduced reduces reduce reduction worsened
    worsens impaired inhibited downregulated lowered fewer shorter slowed suppressed inhibits inhibit lowers lower
    prevents prevent suppresses attenuates""".split()
)
_NEGATION = re.compile(r"\b(not|no|none|neither|nor|without|never|cannot|fail(?:s|ed)? to|lack of)\b|n't\b", re.I)
_WORD = re.compile(r"[A-Za-z]+")

_BASE_FORM = {
    "increased": "increase",
    "decreased": "decrease",
    "reduced": "reduce",
    "improved": "improve",
    "lowered": "lower",
    "raised": "raise",
    "enhanced": "enhance",
    "inhibited": "inhibit",
    "prolonged": "prolong",
    "shortened": "shorten",
    "attenuated": "attenuate",
    "suppressed": "suppress",
    "prevented": "prevent",
}
_SIGNIFICANT_VERB = re.compile(
    r"\b(?P<aux>(?:was|were|is|are)\s+)?significantly\s+(?P<verb>" + "|".join(_BASE_FORM) + r")\b", re.I
)

HEDGES = (
    "We hypothesized that {p}",
    "This study aims to determine whether {p}",
    "It has been proposed that {p}, but this has not been tested",
    "Future studies should examine whether {p}",
    "It remains unknown whether {p}",
    "We will investigate whether {p}",
    "Some authors have speculated that {p}",
)

_COMPARISON = re.compile(
    r"^(?P<a>.+?) (?P<rel>(?:is|are|was|were) (?:more|less) [a-z]+ than|(?:is|are|was|were) "
    r"(?:superior|inferior|better|worse) "
    r"(?:to|than)|(?:increases|decreases|reduces|improves|lowers|raises) .+? compared (?:with|to)) "
    r"(?P<b>.+?)(?P<end>\.?)$"
)
_SUBJECT_VERB = re.compile(
    r"^(?P<s>[A-Za-z][\w-]*(?: [a-z][\w-]*){0,2}) "
    r"(?P<v>increases|decreases|reduces|improves|lowers|raises|causes|prevents|"
    r"promotes|inhibits|protects|worsens|enhances|impairs) (?P<o>.+)$"
)
_SUBJECT_ABSENCE = ("Cessation of {s}", "Inhibition of {s}", "Loss of {s}", "Deficiency of {s}")


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _direction(words: list[str]) -> set[str]:
    """'up' / 'down' for the direction words a text uses."""
    found = set()
    if any(w in UP_WORDS for w in words):
        found.add("up")
    if any(w in DOWN_WORDS for w in words):
        found.add("down")
    return found


def _match_case(new: str, old: str) -> str:
    return new.capitalize() if old[:1].isupper() else new


_LEAD_IN = re.compile(
    r"^(?:(?:BACKGROUND|OBJECTIVES?|METHODS|RESULTS|FINDINGS|CONCLUSIONS?|INTERPRETATION)S?:?\s+)?"
    r"(?:(?:Here,?|In this study,?|Thus,?|Overall,?|Together,?|Taken together,?)\s+)?"
    r"(?:(?:we|these data|our "
    r"(?:results|data|findings))\s+(?:show|showed|found|find|demonstrate|demonstrated|report|"
    r"suggest|suggested|reveal|revealed|indicate|indicated|establish)\s+that\s+)?"
)
_PRECEDES_ADJECTIVE = frozenset(
    "a an the with of in to revealed showed had has have found demonstrated caused resulted".split()
)


def _article(text: str) -> str:
    """'a increase' -> 'an increase' and 'an decrease' -> 'a decrease' after a swap."""
    text = re.sub(r"\b([Aa]) ([aeiouAEIOU])", r"\1n \2", text)
    return re.sub(r"\b([Aa])n ([b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z])", r"\1 \2", text)


def swap_evidence_direction(pair: StancePair) -> StancePair | None:
    """The evidence with its single direction word reversed, when both texts speak of one direction and neither
    negates."""
    if _NEGATION.search(pair.statement) or _NEGATION.search(pair.passage):
        return None
    claim_direction = _direction(_words(pair.statement)[1:])  # a first word is the subject's ('Activated Cdk5 ...')
    hits = [m for m in _WORD.finditer(pair.passage) if m.group(0).lower() in EVIDENCE_SWAPS]
    if len(claim_direction) != 1 or len(hits) != 1:
        return None
    word = hits[0].group(0)
    evidence_direction = _direction([word.lower()])
    if pair.label == "SUPPORT":
        label = "CONTRADICT"
    elif pair.label == "CONTRADICT" and evidence_direction and evidence_direction != claim_direction:
        label = "SUPPORT"
    else:
        return None
    passage = (
        pair.passage[: hits[0].start()]
        + _match_case(EVIDENCE_SWAPS[word.lower()], word)
        + pair.passage[hits[0].end() :]
    )
    return replace(pair, passage=_article(passage), label=label, kind="contrast:direction")


def null_evidence(pair: StancePair) -> StancePair | None:
    """A supporting 'significantly reduced' made 'did not significantly reduce': the evidence now shows no effect."""
    if pair.label != "SUPPORT" or _NEGATION.search(pair.passage):
        return None
    match = _SIGNIFICANT_VERB.search(pair.passage)
    if match is None:
        return None
    verb = match.group("verb")
    before = _words(pair.passage[: match.start()])
    if not match.group("aux") and (not before or before[-1] in _PRECEDES_ADJECTIVE):
        return None  # 'revealed significantly decreased risk': an adjective, not the sentence's verb
    if match.group("aux"):
        edited = f"{match.group('aux')}not significantly {verb}"
    else:
        edited = f"did not significantly {_BASE_FORM[verb.lower()]}"
    passage = pair.passage[: match.start()] + edited + pair.passage[match.end() :]
    return replace(pair, passage=passage, label="CONTRADICT", kind="contrast:null")


def hedge_evidence(pair: StancePair, rng: random.Random) -> StancePair | None:
    """The evidence restated as something asked, proposed or left open: on the topic, but no finding."""
    if pair.label == "NEUTRAL":
        return None
    body = _LEAD_IN.sub("", pair.passage.strip()).rstrip(".")
    if not body or len(body.split()) < 5:
        return None
    first = body.split()[0]
    if not (first.isupper() or any(c.isdigit() for c in first)):
        body = body[0].lower() + body[1:]
    return replace(pair, passage=rng.choice(HEDGES).format(p=body) + ".", label="NEUTRAL", kind="contrast:hedge")


def reverse_comparison(pair: StancePair) -> StancePair | None:
    """A supported comparison with its two arms swapped is contradicted by the same evidence."""
    if pair.label != "SUPPORT":
        return None
    match = _COMPARISON.match(pair.statement.strip())
    if match is None:
        return None
    a, b = match.group("a"), match.group("b")
    if a.lower() == b.lower():
        return None
    statement = (
        f"{_match_case(b, a)} {match.group('rel')} "
        f"{a[0].lower() + a[1:] if not a.split()[0].isupper() else a}{match.group('end')}"
    )
    return replace(pair, statement=statement, label="CONTRADICT", kind="contrast:comparison")


def change_subject(pair: StancePair, rng: random.Random) -> StancePair | None:
    """'X increases Y' supported: 'Cessation / Inhibition / Loss of X increases Y' is contradicted by the same
    evidence."""
    if pair.label != "SUPPORT" or _NEGATION.search(pair.statement):
        return None
    match = _SUBJECT_VERB.match(pair.statement.strip())
    if match is None:
        return None
    subject = match.group("s")
    if not subject.split()[0].isupper():
        subject = subject[0].lower() + subject[1:]
    statement = f"{rng.choice(_SUBJECT_ABSENCE).format(s=subject)} {match.group('v')} {match.group('o')}"
    return replace(pair, statement=statement, label="CONTRADICT", kind="contrast:subject")


def contrast_pairs(
    pairs: list[StancePair], seed: int = 0, hedge_share: float = 0.35, weight: float = 0.7
) -> list[StancePair]:
    """Every edit that applies to each SUPPORT / CONTRADICT pair outside `heldout` (hedges on `hedge_share` of them)."""
    rng = random.Random(seed)
    out: list[StancePair] = []
    for pair in pairs:
        if pair.split == "heldout" or pair.label == "NEUTRAL":
            continue
        edits = [
            swap_evidence_direction(pair),
            null_evidence(pair),
            reverse_comparison(pair),
            change_subject(pair, rng),
        ]
        if rng.random() < hedge_share:
            edits.append(hedge_evidence(pair, rng))
        out += [replace(edit, source="contrast", weight=weight) for edit in edits if edit is not None]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.contrast", description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2, help="examples printed per edit")
    args = parser.parse_args(argv)
    from training.pool import build_pool

    pool, _ = build_pool()
    made = contrast_pairs([p for p in pool if p.split == "train"])
    counts = Counter((p.kind, p.label) for p in made)
    for (kind, label), n in sorted(counts.items()):
        print(f"{kind:<22}{label:<12}{n:>7}")
    shown: Counter[str] = Counter()
    for p in made:
        if shown[p.kind] < args.examples:
            shown[p.kind] += 1
            print(f"\n[{p.kind} -> {p.label}]\n  claim:    {p.statement}\n  evidence: {p.passage[:240]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
