"""Small text utilities: sentence splitting, tokens, key terms. Pure functions, no models."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-+/.]*[A-Za-z0-9+]|[A-Za-z0-9]")

STOPWORDS = frozenset(
    """a an the and or of to in on for with by from as at is are was were be been being this that these those it its
    does do did has have had not no than then which who whom what when where why how can could may might will would
    should shall into about over under between among also such via per vs versus there their they them we our you your
    i he she his her if but so any all each more most less least other some only same very both either
    neither""".split()
)


# The labels of structured abstracts (every one used at least twice in the SciFact corpus, and JAMA's, Cochrane's
# and Bioinformatics'), so a quote does not open "AND RELEVANCE Among cigarette smokers ..." or "AUTHORS'
# CONCLUSIONS NRT, bupropion ...". Longer labels first: an alternation takes the first that fits.
SECTION_LABELS = (
    r"CONCLUSIONS? AND RELEVANCE|AVAILABILITY AND IMPLEMENTATION|DATA COLLECTION AND ANALYSIS|MAIN OUTCOMES? "
    r"AND MEASURES?|"
    r"BACKGROUND|OBJECTIVES?|STUDY OBJECTIVES?|AIMS?|PURPOSE OF "
    r"REVIEW|PURPOSE|CONTEXT|IMPORTANCE|INTRODUCTION|MOTIVATION|"
    r"HYPOTHESIS|RATIONALE|MATERIALS? AND METHODS|METHODS?|METHODOLOGY|REVIEW METHODS|SEARCH METHODS|SEARCH STRATEGY|"
    r"SELECTION CRITERIA|ELIGIBILITY CRITERIA FOR SELECTING STUDIES|ELIGIBILITY CRITERIA|DATA SOURCES?|STUDY "
    r"SELECTION|DATA EXTRACTION|DATA SYNTHESIS|"
    r"EXPERIMENTAL DESIGN|RESEARCH DESIGN|STUDY DESIGN|DESIGN|SETTINGS?|PARTICIPANTS|PATIENTS|SUBJECTS|"
    r"INTERVENTIONS?|EXPOSURES?|MAIN OUTCOMES? MEASURES?|MAIN OUTCOME MEASUREMENTS?|MAIN OUTCOMES?|OUTCOME MEASURES?|"
    r"MEASUREMENTS?|MAIN RESULTS|RESULTS?|PRINCIPAL FINDINGS|RECENT FINDINGS|FINDINGS|OBSERVATIONS|"
    r"EVIDENCE REVIEW|AUTHORS'? CONCLUSIONS|CONCLUSIONS?|INTERPRETATION|IMPLICATIONS|DISCUSSION|"
    r"GENERAL SIGNIFICANCE|SIGNIFICANCE STATEMENT|SIGNIFICANCE|KEY POINTS|LAY SUMMARY|SUMMARY|ABSTRACT|UNLABELLED|"
    r"AVAILABILITY|CONTACT|FUNDING|CLINICAL TRIAL REGISTRATION|TRIAL REGISTRATION"
)
# Labels join into one: "METHODS AND RESULTS", "METHODOLOGY/PRINCIPAL FINDINGS", "DESIGN, SETTING, AND PARTICIPANTS".
_JOINER = r"\s*(?:,\s*and\s+|,|\band\s|&|/)\s*"
_LABEL_JOINER = re.compile(_JOINER, re.IGNORECASE)
# Upper-case labels may omit the colon (SciFact: "BACKGROUND Microarrays offer ..."); title-case ones need it,
# so an ordinary sentence starting "Results show ..." is not taken for a label.
_UPPER_LABEL = re.compile(
    rf"^((?:{SECTION_LABELS})(?:{_JOINER.replace('and', 'AND')}(?:{SECTION_LABELS}))*)\s*:?\s+(?=\S)"
)
_TITLE_LABEL = re.compile(rf"^((?:{SECTION_LABELS})(?:{_JOINER}(?:{SECTION_LABELS}))*)\s*:\s*(?=\S)", re.IGNORECASE)
# A joined label reads as one without its colon too: "Conclusions and Relevance Antiviral treatment ...", "Design,
# Setting, and Participants Retrospective cohort ..." (29 SciFact sentences); the capital after it marks the text.
_TITLE_JOINED = re.compile(
    rf"^((?:{SECTION_LABELS})(?:{_JOINER}(?:{SECTION_LABELS}))*)\s+(?=(?-i:[A-Z0-9]))", re.IGNORECASE
)
_NON_FINDING = re.compile(
    r"^(to (determine|assess|evaluate|investigate|examine|test|compare|identify|explore)|we "
    r"(aimed|sought|investigated whether|asked whether)"
    r"|the (aim|purpose|objective|goal)s? of|this study (aimed|examined|investigated)|whether)\b"
    # "Our objective was to test the hypothesis that ..." (seen as the answer line to "What are the risk factors for
    # postpartum depression?"), "The primary aims were to ..."
    r"|^(our|the|this study's|the study's) (primary |main |overall )?(aims?|purposes?|objectives?|goals?|hypothes[ie]s)"
    r"( of (this|our|the present) (\w+ ){0,2}(study|trial|analysis|work|review))? (was|were|is|are) to\b"
    r"|^we (\w+ly )?searched\b"  # a review's literature search, whatever it searched for ("... association ... risk")
    # "An extensive literature search was conducted ... using the following keywords: ..., 'metformin-associated lactic
    # acidosis'" (quoted as "Qualifies" under an MCQ answer; its keywords hold result words, so it is no design
    # sentence)
    r"|\b(?:literature|systematic|electronic|database|bibliographic|"
    r"computeri[sz]ed|extensive|comprehensive|medline|pubmed) "
    r"(?:\w+ )?searche?s? (?:was|were) (?:\w+ )?(?:conducted|performed|carried out|undertaken|done|made)\b"
    r"|\busing the (?:following )?(?:key ?words|search terms|mesh terms)\b"
    r"|\b(is|are|was|were|remains?|remained) (still |largely |poorly |not (yet )?|incompletely "
    r")?(unknown|unclear|not known|ill-defined|"
    r"poorly understood|elusive|obscure|uncertain|unresolved|incompletely understood|not well understood|not "
    r"fully understood|"
    r"not well defined|not fully elucidated)\b|\?$"
    # what a review is about, and what no one has studied yet: statements about the literature, not findings
    r"|^(here,? )?(in this (review|article|paper|chapter|commentary|perspective),? )?we (will |shall "
    r"|briefly |first )?(discuss|review|summari[sz]e|outline|highlight)\b"
    r"|^(this|the present|the current) (review|article|paper|chapter|commentary|perspective) "
    r"(discusses|reviews|summari[sz]es|outlines|highlights|focuses)\b"
    r"|\bno (previous |prior )?(studies|study|trials?|data|research|reports?) (to date |so far |yet )?(has|have)\b"
    r"|\b(has|have) (not yet|not|never) been (well |fully |adequately |systematically |clearly |previously "
    r")?(evaluated|examined|assessed|"
    r"investigated|studied|established|addressed|explored|determined|reported|described|characteri[sz]ed|defined|elucidated|understood|"
    r"explained|clarified)\b"
    r"|\blittle is known\b|\bremains? to be (determined|established|elucidated|clarified|investigated)\b",
    re.I,
)

# What was done, not what was found: "Patients were randomized to ...", "During the first week, patients ... took 500 mg
# metformin ...", "We performed DNA methylation profiling ...". The stance judge reads such a sentence as support for a
# claim that names its drug; a reader does not. Only when the sentence has no word of a result (_RESULT_WORD).
_STUDIED = (
    r"(?:we|patients|participants|subjects|volunteers|women|men|children|infants|adults|mice|rats|animals|individuals|"
    r"cases|controls|(?:\w+[- ]){0,3}(?:patients|participants|subjects|women|men|children|mice|rats)|"
    r"(?:the )?(?:\w+ )?(?:groups?|arms?)(?: \w+)?(?: \([^)]{0,40}\))?)"
)
_LEAD_IN = (
    r"(?:(?:during|after|before|at|over|for|within|in) [^,]{0,60}, )?(?:in (?:this|a|the) "
    r"[\w\s,-]{0,60}(?:study|trial|analysis|cohort),? )?"
)
_DESIGN = re.compile(
    rf"^{_LEAD_IN}{_STUDIED} (?:(?:who|with|without|aged|from|in) [^,]{{0,80}}?)?(?:were|was) (?:then "
    r"|subsequently |also |each |randomly )?"
    r"(?:randomi[sz]ed|assigned|allocated|enrolled|recruited|included|selected|followed|treated|given|asked|instructed|invited|"
    r"screened|stratified|matched|divided|exposed|fed|injected|administered|immuni[sz]ed|infected|studied|examined|evaluated|"
    r"interviewed|genotyped|sampled)\b"
    rf"|^{_LEAD_IN}{_STUDIED} (?:[^,]{{0,80}}? )?(?:took|received|underwent|completed|consumed|ingested) "
    r"|^(?:(?:recently|here|first|then|next|finally|subsequently|to this end),? )?we (?:\w+ly "
    r")?(?:performed|conducted|used|measured|analy[sz]ed|"
    r"enrolled|recruited|collected|obtained|designed|developed|carried out|screened|"
    r"undertook|studied|examined|assessed|evaluated|compared|included|searched|identified|reviewed|retrieved|applied|tested|"
    r"investigated|sequenced|genotyped|generated|constructed|followed|calculated|estimated|modell?ed|surveyed|interviewed)\b"
    # "Metformin (200 mg/kg) was administrated for up to 14 days." (quoted as "Qualifies" under an MCQ answer)
    r"|^(?:[\w(),/.%-]+ ){1,6}(?:was|were) (?:\w+ "
    r")?(?:administered|administrated|given|injected|infused|delivered|applied|"
    r"instilled|gavaged|extracted|abstracted|collected|searched|retrieved)\b"
    # "Oxygen glucose deprivation was performed on bEND.3 cells to explore the mechanisms of metformin ..."
    # "Studies were grouped according to a priori categories ...", "Participants were categorized into quartiles ..."
    r"|\b(?:was|were) (?:\w+ )?(?:grouped|categori[sz]ed|classified|stratified|divided|sorted) (?:according to|into)\b"
    r"|^we imputed?\b"
    # "A 2-period crossover study design was used with 2 treatment sequences ..." (quoted as "Supports" under an MCQ
    # answer, stop 33), "Study periods lasted for 2 weeks ...": 0 of the 732 rationale sentences, 4 corpus sentences
    r"|\b(?:study )?design (?:was|were) (?:\w+ )?(?:used|employed|adopted|applied|chosen)\b|\bperiods? "
    r"(?:\w+ )?lasted\b"
    r"|\b(?:was|were) (?:\w+ ){0,2}(?:performed|conducted|carried "
    r"out|undertaken|done|used|applied|employed|induced|established)\b"
    r"(?:[^.;]|\.(?=\w))*?\bto "
    r"(?:explore|investigate|examine|determine|assess|evaluate|study|test|identify|elucidate|clarify|characteri[sz]e|"
    r"analy[sz]e|measure|compare|quantify)\b",
    re.I,
)
_RESULT_WORD = re.compile(
    r"\b(?:found|find|show(?:s|ed|n)?|demonstrat|reveal|signific|increas|decreas|reduc|improv|associat|higher|lower|greater|"
    r"less|more|fewer|p ?[<=>]|odds "
    r"ratio|hazard|risk|correlat|predict|confirm|suggest|indicat|identif(?:ied|y) (?:a|an|\d))",
    re.I,
)


def is_design(sentence: str) -> bool:
    """A sentence saying what was done (who was randomized, what they took, what we measured) and no result."""
    return _states_design(strip_section_label(sentence))


# What was tested for is no result: "... and tested these for association to AS status."
_TESTED_FOR = re.compile(r"\bfor (?:an? |the |their )?associations?\b", re.I)


def _states_design(text: str) -> bool:
    return bool(_DESIGN.search(text)) and not _RESULT_WORD.search(_TESTED_FOR.sub("", text))


_TENTATIVE = re.compile(
    r"\b(requires?|warrants?|needs?|deserves?) further "
    r"(investigation|study|studies|research|evaluation|exploration|confirmation)\b"
    r"|\bfurther (studies|research|investigations?|trials|work) (is|are|will be) "
    r"(needed|required|warranted|necessary)\b"
    r"|\bremains? (speculative|to be (confirmed|tested|shown|proven))\b",
    re.I,
)


def is_tentative(sentence: str) -> bool:
    """A sentence that says its own point still needs confirming ('these effects require further investigation'):
    at most a qualification, whatever the judge reads (43 of the SciFact corpus's 45,952 sentences)."""
    return bool(_TENTATIVE.search(sentence))


_ANAPHORS = frozenset("this these those it its they their them such".split())
_SELF_REFERENCE = frozenset(
    """study studies paper review trial trials article work research analysis analyses report investigation cohort
    meta-analysis survey result results finding findings data experiment experiments""".split()
)


def opens_on_reference(sentence: str) -> bool:
    """Whether a sentence's first words point back at an earlier sentence ("These include glioblastoma ...", "Of
    these, 62 patients ...", "When this is altered ..."), so that quoted alone it does not say what it is about. A
    paper's reference to itself ("This prospective, randomized study", "These results") and an expletive "it" ("It
    is well established that ...") need nothing before them; neither does "those who"."""
    raw = [w.strip(",;:().") for w in strip_section_label(sentence).split()[:10]]
    words = [w.lower() for w in raw]
    for i, word in enumerate(words[:4]):
        if word not in _ANAPHORS or (raw[i].isupper() and len(raw[i]) > 1):  # "IT innovations"
            continue
        after = words[i + 1 : i + 7]
        return not (
            any(w in _SELF_REFERENCE for w in after)
            or (word == "it" and ({"that", "whether"} & set(after)))
            or (word == "those" and after[:1] == ["who"])
        )
    return False


_CONNECTIVE = re.compile(
    r"^(?:thus|therefore|hence|consequently|together|taken together|collectively|in conclusion|in "
    r"summary|overall|finally|"
    r"moreover|furthermore|in "
    r"addition|additionally|however|importantly|notably|interestingly|indeed|accordingly),\s+(?=\S)",
    re.I,
)


def without_connective(sentence: str) -> str:
    """'Thus, the biologic activity of IL-17 ...' -> 'The biologic activity of IL-17 ...': a sentence lifted from an
    abstract to stand alone as an answer loses the word that tied it to the sentence before."""
    stripped = _CONNECTIVE.sub("", sentence.strip(), count=1)
    return stripped[:1].upper() + stripped[1:] if stripped != sentence.strip() else stripped


def section_label_match(sentence: str) -> re.Match[str] | None:
    """The structured-abstract label a sentence starts with ('RESULTS', 'Methods:'), as a match, or None."""
    match = _UPPER_LABEL.match(sentence) or _TITLE_LABEL.match(sentence)
    if (
        match is None
        and (joined := _TITLE_JOINED.match(sentence))
        and (len(label_parts(joined.group(1))) > 1 or len(joined.group(1).split()) >= 3)
    ):
        # joined, or long enough to be no sentence's opening words ("Eligibility criteria for selecting studies")
        return joined
    return match


def label_parts(label: str) -> list[str]:
    """The labels a joined one is made of: 'design, setting, and participants' -> ['design', 'setting',
    'participants']; a single label -> [label]."""
    return [part for part in _LABEL_JOINER.split(label) if part]


def strip_section_label(sentence: str) -> str:
    """'CONCLUSIONS Among older patients…' -> 'Among older patients…' (structured-abstract labels)."""
    sentence = sentence.strip()
    match = section_label_match(sentence)
    return sentence[match.end() :] if match else sentence


def is_finding(sentence: str) -> bool:
    """False for aims, objectives, questions, what a review discusses, what has not been studied or is not understood,
    and what was done (is_design): sentences that state no result. Of the SciFact corpus, 4 of the 732 rationale
    sentences of the training claims match, and 2,744 of the 45,220 others (the review and not-yet-studied patterns add
    none of the former and 437 of the latter; "remained ill-defined", "is poorly understood" none and 304; the design
    patterns 1 of the former, a held-out claim's "We assessed ...", and 851 of the latter, 111 of them "X was
    performed ... to explore ...", 36 "X was administered ..."; "has not been well described", "were grouped according
    to", "we imputed" and "Here / Recently, we used / screened ..." none and 148; "Our objective was to ...", "Data were
    extracted ...", "We systematically searched ..." none and 110; "A literature search was conducted ...", "using the
    following keywords" none and 8; "A crossover design was used ...", "Study periods lasted ..." none and 4)."""
    text = strip_section_label(sentence)  # once, for both pattern sets (the court asks for every passage)
    return not _NON_FINDING.search(text) and not _states_design(text)


def split_sentences(text: str) -> list[str]:
    """Split an abstract into sentences; keeps decimals like 0.05 and 'e.g.' together well enough for abstracts."""
    text = " ".join((text or "").split())
    if not text:
        return []
    parts = _SENTENCE_END.split(text)
    return [p.strip() for p in parts if p.strip()]


def tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text or "")]


def content_terms(text: str) -> list[str]:
    """Tokens without stopwords, in order, de-duplicated."""
    return list(dict.fromkeys(t for t in tokens(text) if t not in STOPWORDS and len(t) > 1))


def jaccard(a: str, b: str) -> float:
    sa, sb = set(content_terms(a)), set(content_terms(b))
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


def truncate(text: str, limit: int = 200) -> str:
    """One short line: whitespace collapsed, cut to `limit` characters with an ellipsis (titles in answers, error
    messages), at a word boundary when one is near."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    at_word = (
        cut.rsplit(" ", 1)[0] if " " in cut[-25:] else cut
    )  # not mid-word ("folate intake d…") when a space is near
    return at_word.rstrip(" ,;:") + "…"


def fmt_seconds(seconds: float) -> str:
    """A duration as a person reads it: milliseconds under a second, else seconds to two places."""
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"
