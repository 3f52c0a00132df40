"""The structures of a finding that decide a claim's side, each read by one pure function (agent.judges.reading runs
them in turn): who is compared with whom, what is required, whose absence is studied, which way a ratio points, which
gene is named, and whether anything was found at all."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agent.common.text import is_tentative, split_sentences
from agent.judges.cues import cues

Side = Literal["SUPPORT", "CONTRADICT", "NEUTRAL"]


@dataclass(frozen=True)
class StructureReading:
    """The side a structure decides, and which structure (for traces and tests)."""

    side: Side
    structure: str


# --- comparisons ---------------------------------------------------------------------------------------------------
_UP_COMPARATIVES = frozenset(
    "more greater higher larger faster better superior longer outperform outperforms outperformed".split()
)
_COMPARATIVE = re.compile(
    r"\b(?P<rel>(?:more|less)(?:\s+\w+)?|fewer|greater|higher|lower|larger|smaller|faster|slower|better|worse|superior|inferior"
    r"|longer|shorter|outperform(?:s|ed)?)\b",
    re.I,
)
_LINK = re.compile(r"\b(?:than|compared (?:with|to)|versus|vs\.?)\s", re.I)
_LINK_TO = re.compile(r"\b(?:than|to|compared (?:with|to)|versus|vs\.?)\s", re.I)  # 'superior to', 'inferior to'
_VALENCE = re.compile(
    r"^(?:superior|inferior|better|worse|outperform\w*|(?:more|less) "
    r"(?:effective|efficacious|beneficial|successful))$",
    re.I,
)
_STOP = frozenset(
    """the a an of in for with and or to on by at as is are was were be been being that this these those
    it its their than more less than patients people subjects group groups treatment treated therapy use users who had
    have
    has times about""".split()
)


def _content(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9][a-z0-9-]*", text.lower()) if w not in _STOP and len(w) > 2]


def _sign(rel: str) -> int:
    words = rel.lower().split()
    sign = 1 if words[0] in _UP_COMPARATIVES or words[0].startswith("outperform") else -1
    return -sign if len(words) > 1 and words[1] in ("slowly", "weakly", "rarely") else sign


def _arms(text: str) -> list[tuple[list[str], list[str], int, bool]]:
    """Every 'A <comparative> ... than B' in a text: (words on A's side, words on B's side, +1 / -1, whether it says
    which is better rather than which is more). A's side is what stands between the comparative and 'than' ('more
    common in women than in men') and what comes before it."""
    found = []
    for match in _COMPARATIVE.finditer(text):
        rel = match.group("rel")
        valence = bool(_VALENCE.match(rel))
        link = (_LINK_TO if rel.lower() in ("superior", "inferior") else _LINK).search(
            text, match.end(), match.end() + 60
        )
        if link is None and not rel.lower().startswith("outperform"):
            continue
        between = _content(text[match.end() : link.start()]) if link else []
        after = _content(text[link.end() if link else match.end() :])[:6]
        before = _content(text[: match.start()])[-10:]
        found.append((between + before, after, _sign(rel), valence))
    return found


def _comparison(statement: str, passage: str) -> StructureReading | None:
    """Both texts compare the same two things: the same order and sense supports, one of them reversed contradicts."""
    claims = _arms(statement)
    if len(claims) != 1:
        return None
    left, right, claim_sign, claim_valence = claims[0]
    b = set(
        [w for w in right if w not in left][:1]
    )  # what A is compared with: its first own word ('nicotine' patch, 'women')
    a = set(left) - set(right)
    if not a or not b:
        return None
    for p_left, p_right, sign, valence in _arms(passage):
        if valence != claim_valence:
            continue  # 'superior' is not 'more': fewer hypoglycaemic events is the better arm
        a_left, b_left = bool(a & set(p_left)), bool(b & set(p_left))
        a_right, b_right = bool(a & set(p_right)), bool(b & set(p_right))
        if a_left and b_right and not a_right:
            order = 1
        elif b_left and a_right and not b_right:
            order = -1
        else:
            continue
        if cues(passage).negations:
            return None  # 'was not more effective than': a null result, read elsewhere
        return StructureReading("SUPPORT" if order * sign == claim_sign else "CONTRADICT", "comparison")
    return None


# --- requirement ---------------------------------------------------------------------------------------------------
_REQUIRED = re.compile(
    r"\b(?:is|are|was|were)?\s*(?:required|necessary|essential|needed|indispensable|critical|crucial)\s+(?:for|to)\b"
    r"|\brequires?\b|\bdepends? on\b|\bdependent on\b|\bmediated "
    r"by\b|\bthrough\b(?!\s+(?:\d|week|month|year|day|the end))|\bvia\b",
    re.I,
)
_DISPENSABLE = re.compile(
    r"\bdispensable\b|\bnot (?:required|necessary|essential|needed)\b|\bunnecessary\b|\bindependent(?:ly)? of\b"
    r"|\b(?:does|do|did) not (?:require|depend on|need)\b|\bwithout (?:requiring|the "
    r"need for)\b",
    re.I,
)


_ABLATION = re.compile(
    r"\b(?:knock-?outs?|knock-?down|-null|null|deficient|deficiency|lacking|lack "
    r"of|deletion|deleted|deleting|depleting|depleted|"
    r"depletion|ablat(?:ed|ing|ion)|without|absence of|in the "
    r"absence|germ-free|lesion(?:ed|s)?|inhibitors?|blocking|blockade|"
    r"antagonists?|silenc(?:ed|ing)|removal of|removed|resection|in the dark|-/-)\b|-/-",
    re.I,
)
_LOST = re.compile(
    r"\b(?:abolish(?:ed|es)?|prevent(?:ed|s)?|blocked|failed to|fail to|no longer|did not|could not|no \w+ "
    r"(?:formed|activity|effect)|"
    r"lost|loss of|impaired|eliminated|absent|small,? underdeveloped|underdeveloped|required)\b",
    re.I,
)
_KEPT = re.compile(
    r"\b(?:still|maintained|normal|similar|persist(?:ed|s)?|continued|unaffected|intact|remained|comparable|unchanged|"
    r"independent|preserved|as well as)\b",
    re.I,
)


def _requirement(statement: str, passage: str) -> StructureReading | None:
    """'X is required for Y' against 'X is dispensable for Y' (and the reverse), or against an ablation: without X, Y is
    lost (required) or kept (dispensable)."""
    needs = bool(_REQUIRED.search(statement)) and not _DISPENSABLE.search(statement)
    spares = bool(_DISPENSABLE.search(statement)) or bool(re.search(r"\bpersists? without\b", statement, re.I))
    if not needs and not spares:
        return None
    claim = 1 if needs else -1
    if _DISPENSABLE.search(passage) and not re.search(
        r"\bindependent (?:groups|cohorts|studies|replication)\b", passage, re.I
    ):
        found = -1
    elif _ABLATION.search(passage) and (_LOST.search(passage) or _KEPT.search(passage)):
        lost, kept = bool(_LOST.search(passage)), bool(_KEPT.search(passage))
        if lost == kept:
            return None
        found = 1 if lost else -1
    else:
        return None
    return StructureReading("SUPPORT" if found == claim else "CONTRADICT", "requirement")


# --- the subject's sign --------------------------------------------------------------------------------------------
_LESS_OF = frozenset(
    """low lower lowering reduced reducing reduction deficiency deficient insufficient inadequate loss lack absence
    blocking blockade block blocked inhibition inhibitor inhibitors inhibiting cessation quitting stopping eradication
    eradicating
    depletion depleting knockout knockdown deletion restricted restriction withdrawal short shortened decreased
    decreasing downregulation downregulated downregulating silencing silenced
    limiting less fewer""".split()
)
_MORE_OF = frozenset(
    """high higher elevated raised increased increasing excess excessive restoring restored restoration
    supplementation supplemented replacement extending extended overexpression overexpressing activation greater
    more upregulation upregulated""".split()
)
_NOMINAL_ABSENCE = frozenset(
    """deficiency deficient depletion knockout knockdown deletion cessation withdrawal inhibition blockade loss
    restriction reduction eradication downregulation silencing""".split()
)
_GENERIC = frozenset(
    """intake levels level use expression signalling signaling therapy treatment concentration concentrations diet
    dietary infection exposure consumption status activity function production being""".split()
)
_CAUSAL_UP = re.compile(
    r"\b(?:causes?|caused|leads? to|led to|triggers?|triggered|damages?|damaged|worsens?|worsened|promotes?)\b", re.I
)
_CAUSAL_DOWN = re.compile(
    r"\b(?:protects? against|protected "
    r"against|prevents?|prevented|reverses?|reversed|suppress(?:es|ed)?|abolish(?:es|ed)?)\b",
    re.I,
)
_PREDICATE = re.compile(
    r"\b(?:increases?|increased|decreases?|decreased|reduces?|reduced|lowers?|lowered|raises?|raised|improves?|improved|"
    r"worsens?|worsened|promotes?|promoted|inhibits?|inhibited|prevents?|prevented|causes?|caused|protects?|protected|"
    r"suppress(?:es|ed)?|reverse[sd]?|damages?|damaged|leads? to|led "
    r"to|abolish(?:es|ed)?|was associated|were associated|"
    r"is associated|are associated|had|showed|activates?|activated|deactivates?|deactivated|inactivates?|inactivated|"
    r"encourages?|encouraged|enhances?|enhanced|induces?|induced|stimulates?|stimulated|attenuates?|attenuated|"
    r"impairs?|impaired|accelerates?|accelerated|slows?|slowed|blocks?|blocked)\b",
    re.I,
)


def _stem(word: str) -> str:
    return word[:5]


def _direction_of(predicate: str) -> int:
    if _CAUSAL_DOWN.search(predicate):
        return -1
    if _CAUSAL_UP.search(predicate):
        return 1
    polarity = cues(predicate).polarity
    return (polarity > 0) - (polarity < 0)


def _signed_subject(words: list[str]) -> tuple[int, str | None]:
    """(+1 / -1, the subject's head stem) of a subject phrase: 'physical inactivity' -> (-1, 'activ'), 'reducing dietary
    sodium' -> (-1, 'sodiu'), 'loss of PTEN' -> (-1, 'pten')."""
    sign, head = 1, None
    for i, word in enumerate(words):
        if word in _LESS_OF or word in _MORE_OF:
            sign = -sign if word in _LESS_OF else sign
            if words[i + 1 : i + 2] == ["of"]:
                head = None  # 'siRNA knockdown of A20': the subject is what is knocked down, not the tool
            continue
        elif head is None and word[:2] in ("in", "un") and word[2:].startswith(("activ", "suffic", "adequa")):
            sign, head = -sign, _stem(word[2:])  # 'inactivity' is less activity
        elif (
            head is None
            and word not in _GENERIC
            and word not in _STOP
            and len(word) > 2
            and word not in ("physically", "physical", "dietary")
        ):
            head = _stem(word)
    return sign, head


def _subject_sign(statement: str, passage: str) -> StructureReading | None:
    """What the claim says of more of its subject against what the passage says of more or of less of it: 'High sodium
    intake raises blood pressure' is supported by 'Reducing dietary sodium lowered blood pressure' and 'Physical
    inactivity lowers the risk of diabetes' contradicted by 'Increasing physical activity reduced its incidence'. Fires
    only where one side speaks of less of the subject (else the judge reads the plain direction)."""
    claim_verb = _PREDICATE.search(statement)
    if claim_verb is None or cues(statement).negated or cues(passage).null_result:
        return None
    claim_words = re.findall(r"[a-z0-9][a-z0-9-]*", statement[: claim_verb.start()].lower())
    if not 0 < len(claim_words) <= 5:
        return None
    claim_subject, head = _signed_subject(claim_words)
    claim_direction = _direction_of(claim_verb.group(0)) or _direction_of(statement[claim_verb.start() :])
    if head is None or not claim_direction:
        return None
    passage_words = re.findall(r"[a-z0-9][a-z0-9-]*", passage.lower())
    at = next(
        (
            i
            for i, w in enumerate(passage_words)
            if _stem(w) == head or (w.startswith(("in", "un")) and _stem(w[2:]) == head)
        ),
        None,
    )
    if at is None:
        return None
    before: list[str] = []
    for word in reversed(
        passage_words[max(0, at - 4) : at]
    ):  # 'reducing dietary sodium', 'inhibition of HDAC6'; not 'weight loss after surgery'
        if word == "of" and not before:
            before.insert(0, word)
            continue
        if (
            word in _LESS_OF
            or word in _MORE_OF
            or word in ("dietary", "physical", "antibodies", "genetic", "variants", "that")
        ):
            before.insert(0, word)
            continue
        break
    after = [w for w in passage_words[at + 1 : at + 3] if w in _NOMINAL_ABSENCE]
    passage_subject, _ = _signed_subject([w for w in before if w != "of"] + [passage_words[at]] + after)
    if claim_subject > 0 and passage_subject > 0:
        return None
    rest = " ".join(passage_words[at + 1 :])
    verb = _PREDICATE.search(rest)
    # the verb's own direction first: "activates the pathway, resulting in an attenuated response" activates
    passage_direction = (_direction_of(verb.group(0)) if verb else 0) or _direction_of(
        rest[verb.start() : verb.start() + 80] if verb else rest[:80]
    )
    if not passage_direction:
        return None
    same = claim_subject * claim_direction == passage_subject * passage_direction
    return StructureReading("SUPPORT" if same else "CONTRADICT", "subject_sign")


# --- ratios --------------------------------------------------------------------------------------------------------
_RATIO = re.compile(
    r"(?:\b(?-i:a?OR|a?HR|a?RR|IRR)\b|\b(?:odds|hazard|risk|rate) ratios?\b|\brelative risks?\b)[^0-9]{0,24}?"
    r"(?P<point>\d+(?:[.·]\d+)?)[^0-9]{1,20}?(?:9[05]\s*%\s*)?(?:CI|CredI|confidence "
    r"interval|credible interval)[^0-9]{0,12}?"
    r"(?P<low>\d+(?:[.·]\d+)?)\s*(?:-|–|—|to|,)\s*(?P<high>\d+(?:[.·]\d+)?)",
    re.I,
)
_RISK_WORDS = re.compile(
    r"\b(?:risk|odds|incidence|mortality|hazard|rate|rates|events?|occurrence|likelihood|chance)\b", re.I
)
# a ratio of a good outcome, or of the events a good outcome is free of, points the other way: left to the judge
_GOOD_OUTCOME = re.compile(
    r"\b(?:survival|free|response|remission|abstinence|cessation|success|recovery|improvement|cure)\b", re.I
)


def _number(text: str) -> float:
    return float(text.replace("·", "."))


def _ratio(statement: str, passage: str) -> StructureReading | None:
    """A claim that X raises or lowers a risk against a ratio whose interval lies wholly on one side of 1; words of
    direction in the passage decide instead when it has any (the ratio may be of the comparator)."""
    match = _RATIO.search(passage)
    claim = cues(statement)
    if (
        match is None
        or not claim.polarity
        or claim.negated
        or not _RISK_WORDS.search(statement)
        or _GOOD_OUTCOME.search(statement)
    ):
        return None
    if cues(passage).polarity:
        return None
    point, low, high = _number(match["point"]), _number(match["low"]), _number(match["high"])
    if not low <= point <= high:
        return None
    if high < 1:
        found = -1
    elif low > 1:
        found = 1
    else:
        return None  # spans 1: a null result, which the court's null-result reading handles
    return StructureReading("SUPPORT" if (claim.polarity > 0) == (found > 0) else "CONTRADICT", "ratio")


# --- another gene or protein of the same family ---------------------------------------------------------------------
_NUMBERED = re.compile(
    r"\b([A-Za-z]*[A-Z][A-Za-z]*-?)(\d+[A-Za-z]?)\b"
)  # BRCA1, IL-6, CD4, miR-21: a capital, no space


def _numbered(text: str) -> set[tuple[str, str]]:
    return {(stem.strip(" -").lower(), number.lower()) for stem, number in _NUMBERED.findall(text)}


def _sibling(statement: str, passage: str) -> StructureReading | None:
    """'BRCA2' is not 'BRCA1', 'IL-10' is not 'IL-6': a passage naming a sibling of the claim's numbered name and not
    the name itself speaks of something else."""
    claimed = _numbered(statement)
    named = _numbered(passage)
    for stem, number in claimed:
        if (stem, number) in named:
            continue
        if any(s == stem and n != number for s, n in named):
            return StructureReading("NEUTRAL", "sibling")
    return None


# --- no finding ------------------------------------------------------------------------------------------------------
_NO_FINDING = re.compile(
    r"^(?:\W*\w+:?\s+)?(?:we|this study|the present study|our study|the aim of this study)?\s*"
    r"(?:aim(?:s|ed)? to|sought to|hypothesi[sz]ed that|will (?:investigate|examine|assess|test))"
    r"|\b(?:it )?remains? (?:unknown|unclear|to be determined) whether\b|\bfuture "
    r"(?:studies|research|work) should\b"
    r"|\bhas been (?:proposed|suggested|speculated|hypothesi[sz]ed) that\b|\bhave "
    r"speculated that\b",
    re.I,
)


_SPECULATION = re.compile(
    r"\b(?:has|have) been (?:proposed|suggested|hypothesi[sz]ed|postulated|speculated)\b|\b(?:is|are) "
    r"(?:thought|believed|proposed|hypothesi[sz]ed|"
    r"postulated) to\b|\bone hypothesis\b|\bif confirmed\b|\bthe (?:purpose|aim|objective|goal) of "
    r"(?:this|the present) (?:study|trial|work)\b"
    r"|\bwill (?:test|assess|determine|examine|evaluate|investigate)\b|\braising (?:concern|the "
    r"possibility|the question)\b|\bdesigned to "
    r"(?:test|address|assess|determine|search|evaluate)\b|\b(?:evidence|data) (?:is|are|remains?) "
    r"(?:limited|lacking|scarce|inconclusive)\b"
    r"|\bcurrently lacking\b|\bremains? (?:unclear|unknown|controversial|uncertain)\b|\bmay hold promise\b",
    re.I,
)


def _no_finding(statement: str, passage: str) -> StructureReading | None:
    """A sentence that is an aim, a hypothesis, a proposal or an open question, or that says its point needs
    confirming, finds nothing, whatever the statement. ('We propose that ...' and 'These results suggest that X may
    ...' are how authors state conclusions: findings; a bare modal is left to the judge, evals/HISTORY.md.) A window of
    several sentences may hold a finding beside its 'further research is needed': left to the judge too."""
    if len(split_sentences(passage)) != 1:
        return None
    speculates = bool(_SPECULATION.search(passage)) and not re.search(r"\bwe (?:found|show)", passage, re.I)
    if _NO_FINDING.search(passage) or is_tentative(passage) or speculates:
        return StructureReading("NEUTRAL", "no_finding")
    return None


READERS = (_no_finding, _sibling, _requirement, _comparison, _subject_sign, _ratio)
