"""How many participants a study had, where its abstract states it, with the sentence it came from.

"Sample size" here is what evals/data/README.md defines for the hand-labelled set: the participants (patients,
people, animals) enrolled or analysed, the count the abstract states first for its main analysis. Where it states
only group sizes side by side in one sentence ("68 case patients and 107 control subjects", "(n = 37) ... (n = 37)")
the size is their sum; where a total comes before its groups ("4632 patients were randomised to no charcoal
(n=1554), ...") the total. For a meta-analysis or systematic review, the participants pooled, never the number of
studies. None where no count of participants is stated (most cell and many animal studies, reviews).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_I = re.IGNORECASE
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_WORD = "|".join([*_UNITS, *_TENS, "hundred", "thousand"])
_WORDS = rf"(?:(?:{_WORD})(?:[- ](?:and[- ])?(?:{_WORD}))*)"
_DIGITS = r"(?<![\w.,·-])\d{1,3}(?:(?:,| |\u2009)\d{3})+(?![\d.])|(?<![\w.,·-])\d+(?![\d.,·]\d)"
_NUMBER = rf"(?:{_DIGITS}|\b{_WORDS}\b)"
_PEOPLE = (
    r"(?:patients?|participants?|subjects?|women|men|girls|boys|children|adults|infants|babies|neonates|"
    r"newborns|individuals|persons|people|volunteers|cases|controls|students|survivors|smokers|mothers|"
    r"pregnant women|prisoners|inhabitants|residents|outpatients|inpatients|admissions|respondents|offspring|"
    r"families|couples|twins|veterans|workers|nurses|physicians|athletes|pairs|"
    r"noncases|non-cases|referents|mice|rats|pigs|dogs|rabbits|monkeys|animals|sheep|tumou?rs|eyes)"
)
# "1472 SIDS cases", "20,244 men and women", "Seven PAH patients (4 women; ...)", "61,650 participants"
_COUNT = re.compile(
    rf"(?P<number>{_NUMBER})\s+(?:(?:[A-Za-z][\w'’/+\-]*|\d+[- ]year[- ]old|\([^)]*\))\s+){{0,5}}?"
    rf"(?P<who>{_PEOPLE})\b(?!-)",
    _I,
)
# "4432 were randomized to alendronate or placebo": a count whose people the sentence names before it
_COUNT_DID = re.compile(
    rf"(?P<number>{_NUMBER})\s+(?:were|was|had been)\s+(?:randomi[sz]ed|randomly|enrolled|included|recruited|studied|"
    r"analy[sz]ed|followed|evaluated|examined|interviewed|surveyed|assigned)\b",
    _I,
)
# "22,420 women were randomly assigned to the intervention group and 22 518 to the control group": a group's count
# that names its group instead of its people, counted only after a count of people in the same sentence
_GROUP_COUNT = re.compile(
    rf"(?P<number>{_NUMBER})\s+(?:to|in|into)\s+(?:the|each|an?)\s+(?:[\w-]+\s+){{0,3}}?(?:groups?|arms?)\b", _I
)
_N_EQUALS = re.compile(r"\b[nN]\s*=\s*(?P<number>\d{1,3}(?:[, ]\d{3})+|\d+)(?![\d.])(?!\s*/)")


@dataclass(frozen=True)
class SizeReading:
    """A stated sample size and the sentence it was read from."""

    size: int
    sentence: str


def number_value(text: str) -> int | None:
    """'4,632' -> 4632, '22 518' -> 22518, 'Seventy-four' -> 74, 'One hundred twenty-six' -> 126; None otherwise."""
    text = text.strip()
    digits = re.sub(r"[, \u2009]", "", text)
    if digits.isdigit():
        return int(digits)
    total, current = 0, 0
    for word in re.split(r"[- ]+", text.lower()):
        if word == "and":
            continue
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word == "thousand":
            total, current = total + max(current, 1) * 1000, 0
        else:
            return None
    value = total + current
    return value or None


@dataclass(frozen=True)
class _Count:
    start: int
    end: int
    value: int
    people: bool  # 'N <people>' (True) or 'n = N' (False)


def _allowed_before(before: str) -> bool:
    """A count follows a preposition, a verb, a section label or punctuation ('of 200 patients', 'enrolled 76,545',
    'PARTICIPANTS 1472', '(n = ...'), not a name it numbers ('type 2 diabetes', 'molecule 1', 'beclin 1')."""
    word = re.search(r"([A-Za-z][\w'-]*)\s*$", before)
    if word is None:
        return True  # sentence start, punctuation, a bracket
    token = word.group(1)
    lower = token.lower()
    return (token.isupper() and len(token) > 2) or lower in _FUNCTION_WORDS or lower.endswith(("ed", "ing"))


_FUNCTION_WORDS = frozenset(
    "of in on among from with for and or total to by at between vs versus than all these the only another additional "
    "were was are had have comprised consisted included including involving enrolled recruited studied examined "
    "analysed analyzed randomized randomised assigned describe report identified selected followed evaluated "
    "surveyed tested interviewed screened treated underwent contained includes include comprise involve were "
    "identify enroll recruit study examine analyse analyze follow interview survey select evaluate compare treat "
    "randomize randomise assign a an our this that whom which who remaining".split()
)
_BETWEEN_NOT_PEOPLE = re.compile(
    r"\b(?:studies|trials|articles|papers|citations|reviews|arms|sites|centers|centres|hospitals|countries|units|"
    r"networks|sectors|houses|schools|events|deaths|episodes|loci|snps|genes|lines|strains|groups|types|kinds|sets|"
    r"generations|litters|batches|copies|doses|sessions|years?|months?|weeks?|days?|hours?|million|billion|per|"
    r"times|fold|cycles|visits|in|on|of|from|at|to|with|among|per|for|by)\b|%|\d",
    _I,
)
_PEOPLE_NAMED = re.compile(rf"\b{_PEOPLE}\b", _I)
_PAIR = re.compile(rf"(?P<number>{_NUMBER})\s+(?:and|or)\s+(?={_NUMBER}\s)", _I)


def _counts(sentence: str) -> list[_Count]:
    """Each count of participants in a sentence, in order: 'N <people>', 'N and M <people>' and 'n = N'."""
    found: list[_Count] = []
    for number in re.finditer(_NUMBER, sentence, _I):
        match = _COUNT.match(sentence, number.start())
        if match is None:
            did = _COUNT_DID.match(sentence, number.start())
            value = number_value(did.group("number")) if did else None
            if did and value and _allowed_before(sentence[: did.start()]) and _PEOPLE_NAMED.search(sentence):
                found.append(_Count(did.start(), did.end("number"), value, True))
            continue
        before = sentence[: match.start()]
        between = re.sub(
            r"\d+[- ]year[- ]old", "", _without_brackets(sentence[match.end("number") : match.start("who")])
        )
        if _BETWEEN_NOT_PEOPLE.search(between) or not _allowed_before(before):
            continue
        if re.search(r"\b(?:aged?|ages|every|at least|at most|top|first|last)\s*$|[\d.]\s*[-–]\s*$", before, _I):
            continue
        if re.match(r"\s*\(\s*\d+(?:\.\d+)?\s*%\s*\)", sentence[match.end() :]):
            continue  # "MACE occurred in 25 subjects (8.2%)": a share of the sample, not the sample
        value = number_value(match.group("number"))
        if value is not None:
            found.append(_Count(match.start(), match.end(), value, True))
    for match in _GROUP_COUNT.finditer(sentence):
        value = number_value(match.group("number"))
        if value is not None and any(c.people and c.end <= match.start() for c in found):
            found.append(_Count(match.start(), match.end("number"), value, True))
    for match in _PAIR.finditer(sentence):
        value = number_value(match.group("number"))
        if (
            value is not None
            and _allowed_before(sentence[: match.start()])
            and any(c.start == match.end() for c in found)
        ):
            found.append(_Count(match.start(), match.end("number"), value, True))
    for match in _N_EQUALS.finditer(sentence):
        value = number_value(match.group("number"))
        if value is not None:
            found.append(_Count(match.start(), match.end(), value, False))
    return sorted(found, key=lambda c: c.start)


_SKIPPED = re.compile(
    r"^\s*(?:background|context|importance|introduction|rationale|objectives?|aims?|purpose|selection criteria|"
    r"inclusion criteria)\b|\bwe included (?:\w+ ){0,3}(?:studies|trials|papers|articles|reports|reviews)\b|"
    r"\beligible (?:if|when)\b|\bwere included if\b",
    _I,
)
_INVITED = re.compile(r"\b(?:invited|approached|selected|received|sent|eligible|screened|contacted)\b", _I)
# "Of 91 girls selected, 64 performed the test": the part that took part
_OF_THEM = re.compile(
    rf"^\s*(?:[A-Z]{{2,}}[A-Z ]*\s+)?of (?:the |these )?(?P<all>{_NUMBER})\b[^,;]{{0,120}},\s*(?P<part>{_NUMBER})\b"
    r"(?=[^.;]{0,40}\b(?:performed|completed|participated|agreed|took part|provided|attended|responded|returned|"
    r"(?:were|was) (?:included|enrolled|analy[sz]ed|randomi[sz]ed|studied|eligible)))",
    _I,
)
_TOOK_PART = re.compile(r"\b(?:agreed|participated|returned|completed|took part|responded|consented)\b", _I)


def size_of(sentences: Sequence[str], pooled: bool = False) -> SizeReading | None:
    """The sample size the sentences state first (module docstring); `pooled`: a meta-analysis or systematic review,
    whose count must be of participants pooled, stated beside its studies or in a sentence of its own."""
    for i, sentence in enumerate(sentences):
        if _SKIPPED.search(sentence):
            continue
        counts = _counts(sentence)
        if not counts:
            continue
        if pooled and not re.search(r"\b(?:total|involving|including|included|pooled|among|of|with)\b", sentence, _I):
            continue
        of_them = _OF_THEM.match(sentence)
        part = number_value(of_them.group("part")) if of_them else None
        whole = number_value(of_them.group("all")) if of_them else None
        if part and whole and part < whole:
            return SizeReading(part, sentence)
        if _INVITED.search(sentence) and not _TOOK_PART.search(sentence):
            later = next((s for s in sentences[i + 1 : i + 3] if _TOOK_PART.search(s) and _counts(s)), None)
            if later is not None:  # "908 prisoners received a questionnaire ... 650 agreed": those who took part
                return SizeReading(_main_count(_counts(later), later), later)
        return SizeReading(_main_count(counts, sentence), sentence)
    return None


def _main_count(counts: list[_Count], sentence: str) -> int:
    """One sentence's counts as one size: the first, plus the groups stated beside it as parts of one sample ('68
    case patients and 107 control subjects', '(n = 3488) or ... (n = 1572)'); a total followed by its groups in
    brackets ('74 patients ... (n = 37) ... (n = 37)') stays the total."""
    run = [counts[0]]
    for count in counts[1:]:
        raw = sentence[run[-1].end : count.start]
        gap = re.sub(r"\b(?:type|grade|stage|class|phase) [\dIV]+\b", "", _without_brackets(raw), flags=_I)
        if (
            re.search(r"\b(?:studies|trials)\b", raw)
            or len(gap) > 70
            or re.search(r"[\d;.]", gap)
            or not re.search(r"\b(?:and|or|vs\.?|versus)\b|,", gap)
        ):
            break
        run.append(count)
    among = len(counts) > 1 and re.fullmatch(r"\s*(?:among|out of|of)\s*", sentence[counts[0].end : counts[1].start])
    if among and counts[1].value > counts[0].value:  # "3770 POAG cases among 140,496 examined individuals": the whole
        return counts[1].value
    first, groups = run[0], run[1:]
    if not groups or (
        first.people and not any(g.people for g in groups) and sum(g.value for g in groups) <= first.value
    ):
        return first.value
    return sum(c.value for c in run)


def _without_brackets(text: str) -> str:
    """Text with its bracketed asides removed ('women (33 ± 1 wk, BMI 23.5 kg/m(2)) and' -> 'women  and')."""
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"\([^()]*\)|\[[^\[\]]*\]", "", text)
    return re.sub(r"^[^(]*\)|\([^)]*$", "", text) if ")" in text or "(" in text else text
