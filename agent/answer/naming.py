"""What a question asks about that the records an answer rests on never name: the terms and settings an answer
says it leaves out, and those that make it no answer to the question at all (the run declines)."""

from __future__ import annotations

import re

from agent.common.text import content_terms
from agent.english.asks import entities
from agent.english.words import PREPOSITIONS, SUBORDINATORS, is_verb_only
from agent.literature import Record
from agent.scoring.aspect import GREEK, POPULATION_WORDS, RELATION_WORDS, is_named, words_of

# Words that ask rather than name what is asked about ("What is known about the mechanisms by which ...").
QUESTION_WORDS = frozenset(
    """what which who whom whose when where why how can could should would will known know current currently state
    evidence literature studies study research mechanism mechanisms pathway pathways basis factor factors main major
    key primary new recent latest work works act acts happen happens explain explains way ways kind kinds type types
    best most many much mean means compare compares take takes part play plays interact interacts occur occurs become
    becomes drive drives having differ differs""".split()
)
# "Which genetic variant is ...", "In which group is ...", "Which proteins does ...": the words between "which" / "what"
# and an auxiliary name the kind of thing asked for, which the answering record names by its instance ("DGKK").
_ASKED_KIND = re.compile(
    r"\b(?:which|what)\s+((?:[\w-]+\s+){1,3}?)(?:is|are|was|were|do|does|did|can|could|has|have|had|may|might|will|would|should)\b",
    re.I,
)


def unnamed_terms(question: str, records: list[Record], together: bool = True) -> list[str]:
    """The question's topic words (as the question writes them) that none of `records` names, read as record_addresses
    reads them: an open question on "the role of IL-17 in psoriasis" answered from IL-17 papers that never mention
    psoriasis gets ["psoriasis"], so the answer can say what its sources leave out. `together`: the words of a
    qualifier ('in human embryos') must be named by one record."""
    per_record = [_record_words(r) for r in records]
    named = frozenset().union(*per_record)
    question = question.translate(GREEK)
    kind = _ASKED_KIND.search(question)
    asked_kind = set(content_terms(kind.group(1))) if kind else set()
    asked = [
        t
        for t in content_terms(question)
        if t not in RELATION_WORDS and t not in QUESTION_WORDS and t not in asked_kind
    ]
    missing = {t for t in asked if not is_named(t, named)}
    for phrase, _ in (
        _qualifiers(question, set(asked)) if together else []
    ):  # 'in human embryos': one record must name both words
        if not _named_whole(phrase, per_record):
            missing |= set(phrase)
    return _phrases(question, missing)


def unnamed_settings(question: str, records: list[Record], names: list[str]) -> list[str]:
    """What a claim or yes / no question is claimed for that none of `records` names: a qualifier of two or more words
    ('in patients with *heart failure*', 'among *Chinese citizens*': one record must name all of it), and the
    question's `names` ('TRF2'), as the question writes them. Not its other words: a claim's predicate ('deactivates',
    'is inaccurate', 'offers') is what its records say in their own words, and saying they "do not mention" it
    misleads (seen on half the answers to PubMedQA's yes / no questions, stop 33)."""
    per_record = [_record_words(r) for r in records]
    translated = question.translate(GREEK)
    asked = {t for t in content_terms(translated) if t not in RELATION_WORDS and t not in QUESTION_WORDS}
    missing = [written for phrase, written in _qualifiers(translated, asked) if not _named_whole(phrase, per_record)]
    texts = [r.text.lower() for r in records]
    named = frozenset().union(*per_record)
    missing += [
        name
        for name in names
        if not any(name.lower() in text for text in texts)
        and not is_named(name.lower().translate(GREEK), named)
        and not any(name in phrase for phrase in missing)
    ]
    return list(dict.fromkeys(missing))


def _record_words(record: Record) -> frozenset[str]:
    """A record's words as prefixes; "81 mg" names a dose, so "low-dose" is not missing from it."""
    return words_of(record.text) | (DOSE_WORDS if _DOSE.search(record.text) else frozenset())


def _named_whole(phrase: list[str], per_record: list[frozenset[str]]) -> bool:
    """Whether one record names every term of a qualifier (`per_record`: each record's words, _record_words)."""
    return any(all(is_named(t, words) for t in phrase) for words in per_record)


# Prepositions that say where, among whom or under what a finding holds ('in human embryos', 'among Chinese citizens').
_SETTING_PREPOSITIONS = frozenset("in among with without during after before within across".split())
_RUN_BREAKS = SUBORDINATORS | PREPOSITIONS  # a qualifier's words end at a clause or another preposition
_EDGE_PUNCT = "?!.,;:()\"'"  # stripped from a question's words before they are read as terms


def _qualifiers(question: str, asked: set[str]) -> list[tuple[list[str], str]]:
    """The question's topic words after a setting preposition, two or more in a row, as terms and as written: the
    setting or the people a finding is claimed for ('in patients with *heart failure*', 'in *human embryos*').
    Records that name "human" and "embryos" only apart, one about rats and one about mouse embryos, do not speak of
    human embryos. A run ends at a word that can only be a verb ('... in patients *receiving* ...'), at a clause
    ('while', '--') and at punctuation."""
    words = question.split()
    found: list[tuple[list[str], str]] = []
    for i, word in enumerate(words[:-1]):
        if word.lower() not in _SETTING_PREPOSITIONS or word[-1:] in ",;:":
            continue
        run: list[str] = []
        written: list[str] = []
        for following in words[i + 1 :]:
            bare = following.strip(_EDGE_PUNCT)
            terms = content_terms(bare.translate(GREEK))
            if "--" in following or len(terms) != 1 or is_verb_only(bare) or bare.lower() in _RUN_BREAKS:
                break
            if terms[0] not in asked and terms[0] not in POPULATION_WORDS:
                break
            run.append(terms[0])
            written.append(bare)
            if following[-1:] in ",;:?!.)":
                break
        if len(run) >= 2 and set(run) & asked:
            found.append((run, " ".join(written)))
    return found


def _phrases(question: str, missing: set[str]) -> list[str]:
    """The missing terms as the question writes them, neighbours joined: "heart failure", not "heart or failure"."""
    phrases: list[str] = []
    run: list[str] = []
    for word in [*question.split(), ""]:
        written = word.strip(_EDGE_PUNCT)
        terms = content_terms(written)  # "Alzheimer's" is the term "alzheimer"
        if written and terms and all(term in missing for term in terms):
            run.append(written)
            if word[-1:] not in ",;:?!.)":
                continue
        if run:
            phrases.append(" ".join(run))
            run = []
    found = {term for phrase in phrases for term in content_terms(phrase)}
    phrases += sorted(missing - found)  # a term the question writes inside another token ('IL-17/IL-23')
    return list(dict.fromkeys(phrases))


DOSE_WORDS = frozenset({"dose", "doses", "dosag", "dosin", "dosed"})
_DOSE = re.compile(r"\d\s*(?:mg|g|µg|μg|mcg|ug|ng|iu|IU|units?|ml|mL)(?:/(?:kg|day|d|m2))?\b")


def unnamed(question: str, cited: list[Record], together: bool = True, claimed: bool = False) -> list[str]:
    """What a question asks about that none of the records the answer cites mentions: ["psoriasis"] for "the role of
    IL-17 in psoriasis" answered from IL-17 papers that never mention it. For a claim or a yes / no question
    (`claimed`), only where it is claimed to hold and the names it asks about: ["heart failure"] for "Statins reduce
    mortality in patients with heart failure" answered from primary-prevention trials (the court holds a claim to a
    word of its subject and one of its object, not to every word; its predicate is worded the records' own way).
    Options are left out: each names its own words. `cited`: the records the answer rests on (records_rested_on)."""
    return (
        unnamed_settings(question, cited, entities(question)) if claimed else unnamed_terms(question, cited, together)
    )


def unnamed_names(question: str, missing: list[str]) -> list[str]:
    """Those of the terms `unnamed` found that are names the question asks about ("TNF-alpha", "IL-17", "CRISPR"). An
    open answer about IL-6 to "What is the role of TNF-alpha in rheumatoid arthritis?" does not address the question,
    however well its records support what they say: the run declines (agent.answer.assemble)."""
    names = [name.lower() for name in entities(question)]
    return [
        term for term in missing if any(word.lower() in names for word in term.split())
    ]  # 'DUSP4 kinase' holds a name


def unaddressed_terms(question: str, missing: list[str], titles_only: bool = False) -> list[str]:
    """What an open answer's records leave out that makes it no answer: a name the question asks about
    (`unnamed_names`), or two or more of the question's words that none of them mentions ("How does aspirin prevent
    blood clots?" answered from a colorectal-cancer review: "blood clots"). One common word is said, not a reason to
    decline ("athletes"), and so are any when a record the answer rests on is a bare title (`titles_only`: a live
    source's "Attention is All you Need" does not say "transformer networks", its abstract would). `missing` is
    `unnamed(..., together=False)`: words no record names at all. On the open questions' tune split the two-word rule
    declined 4 answers whose line cited no gold abstract and 1 that did (precision when answering 0.556 -> 0.636;
    evals/HISTORY.md, stop 34)."""
    if not titles_only and sum(len(term.split()) for term in missing) >= 2:
        return missing
    return unnamed_names(question, missing)


COMPARED_OPTION_WORDS = 4  # options this short are names ('statins'), not statements: the evidence must compare them


_COMPARING = re.compile(
    r"\b(more|less|better|worse|higher|lower|greater|superior|inferior|compared|versus|vs|than|most|least)\b", re.I
)


def uncompared_sentence(question: str, options: list[str], selected: int, quoted: list[str]) -> str:
    """' The passages quoted for (A) never name ezetimibe: they do not compare the options.' when the options are
    names and no passage quoted for the chosen one names another option: 'Statins are potent inhibitors of cholesterol
    biosynthesis' is evidence about statins, not that they lower LDL more than ezetimibe (issue 44). Only a question
    that asks for a comparison ('Which is more effective ...?') needs one; 'Which drug increases insulin sensitivity?'
    is answered by evidence about the drug alone. Empty otherwise."""
    others = [o for i, o in enumerate(options) if i != selected]
    if not quoted or not _COMPARING.search(question) or any(len(o.split()) > COMPARED_OPTION_WORDS for o in options):
        return ""
    said = {t for text in quoted for t in content_terms(text)}
    if any(set(content_terms(o)) & said for o in others):
        return ""
    never = " or ".join(others)
    return f" The passages quoted for ({chr(65 + selected)}) never name {never}: they do not compare the options."
