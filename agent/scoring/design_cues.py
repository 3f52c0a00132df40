"""The words and phrases each study design shows itself by: the regular expressions agent/scoring/design.py reads an
abstract with, one per cue (a stated design, the signature of one, what was studied). The rules that weigh them, and
in which order, are design.py's; the vocabulary is here so that each can be read, and grown, on its own.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
META = re.compile(
    r"meta-?analy(?:sis|[sz]ed|tic)|meta-?regression|(?:our|separate|network) meta-?analyses|meta-?analyses were|"
    r"pooled analysis of|quantitative synthesis",
    _I,
)
POOLED = re.compile(
    r"\bpooled\b|random[- ]effects?|fixed[- ]effects?|summary (?:estimates?|sensitivity|odds|relative)|"
    r"\bmeta-?analy|combined (?:odds|relative|hazard|risk)|weighted mean difference|"
    r";\s*(?:\w+|\d+) (?:trials|studies);",
    _I,
)
SYSTEMATIC = re.compile(
    r"systematic(?:ally)? (?:literature )?(?:review|search)(?!s)|\bsearch strategy\b|\bdata sources\b|"
    r"\b(?:we )?searched (?:the |for )?(?:\w+ ){0,3}(?:medline|pubmed|embase|cochrane|web of science|databases?|"
    r"literature|electronic)|(?:medline|pubmed|embase)[^.]{0,80}(?:were|was) searched|literature search|"
    r"\bselection criteria\b|\bstudy selection\b|studies (?:met|meeting) (?:the )?inclusion criteria",
    _I,
)
NOT_A_STUDY = re.compile(  # a methods paper about meta-analysis is not one
    r"\bwe (?:develop|derive|propose|study|introduce)\b[^.]{0,80}\b(?:methods?|measures?|statistics?|metrics?|"
    r"techniques?)\b|\b(?:methodology|statistical methods?) for\b|\bwe review the statistical\b",
    _I,
)
UNCONTROLLED = re.compile(r"\bopen-label\b|\bsingle-arm\b|\bnon-?randomi[sz]ed\b|\buncontrolled\b", _I)
LITERATURE = re.compile(  # an abstract that reports others' findings, not its own
    r"\b(?:studies|trials|data|evidence|work) (?:have |has )?(?:shown|demonstrated?|show|suggests?|indicates?)\b|"
    r"\bin a recent (?:\w+ )?(?:study|trial)\b|\bare currently ongoing\b|\brecent (?:studies|evidence|data|work)\b",
    _I,
)
METHODS_PAPER = re.compile(  # a paper proposing a statistic or a method: no study of its own
    r"\bwe (?:develop|derive|propose|introduce)\b[^.]{0,80}\b(?:methods?|measures?|statistics?|metrics?|techniques?)\b",
    _I,
)
NARRATIVE = re.compile(
    r"\b(?:this|the present|our|in this|a) (?:mini-?)?review\b|\bwe (?:review|discuss|summari[sz]e|highlight|"
    r"examine the current)\b|\bhere,? (?:we|i) (?:review|discuss|summari[sz]e)\b|\bi review\b|"
    r"\breview(?:s|ed)? (?:the |recent |current )+(?:advances|evidence|literature|knowledge|studies|findings|state)|"
    r"\bthis (?:chapter|perspective|overview|article (?:reviews|discusses|summari[sz]es))\b|"
    r"\bposition statement\b|\bcurrent perspectives\b|\bwe (?:provide|give) an overview\b|"
    r"\bas we discuss here\b|\bthis review\b|\ba summary is given\b",
    _I,
)
NARRATIVE_TITLE = re.compile(r"\breview\b|\bperspectives?\b|\boverview\b|: a (?:\w+ )?update\b", _I)
RCT = re.compile(
    r"\brandomi[sz]ed\b[^.]{0,60}\b(?:trial|study|design)\b(?!s)|\brandomly (?:assigned|allocated)\b|"
    r"\bwere randomi[sz]ed\b|\bwe randomi[sz]ed\b|\brandomi[sz]ation\b|\bcluster[- ]randomi[sz]ed\b|"
    r"\bplacebo-controlled\b",
    _I,
)
STRONG_RCT = re.compile(
    r"\bdouble-blind(?:ed)?\b[^.]{0,40}\btrial\b(?!s)|"
    r"\b(?:a|an|this|our|the present|in this)\s+(?:[\w-]+,?\s+){0,4}randomi[sz]ed\b[^.]{0,40}\btrial\b(?!s)|"
    r"\bwere randomly (?:assigned|allocated)|\bwe randomi[sz]ed\b|\bwere randomi[sz]ed\b",
    _I,
)
PROSPECTIVE_ONLY = re.compile(r"\b(?:future|further|should|needed|warranted|required|are needed)\b", _I)
COMPUTATIONAL = re.compile(
    r"\bwe present a (?:new |novel )?(?:\w+ )?(?:method|software|tool|representation|algorithm|approach)\b|"
    r"\b(?:software|package|tool)\b[^.]{0,40}\b(?:is|are|was) (?:freely )?available|\bsoftware package\b|"
    r"\bwe (?:present|describe|developed?) [^.]{0,60}\bsoftware\b|\bour model\b|\bmicrosimulation\b|"
    r"\bdecision (?:analytic(?:al)?|model)|\bmathematical models?\b|"
    r"\bcomputational (?:approaches|analysis|model)|\bin silico\b|"
    r"\bin this protocol\b|\bthis protocol (?:describes|provides)|"
    r"\blandscape of\b|"
    r"\bgenome-wide (?:data|map)|\bsequencing data\b|\b\d+ (?:\w+ )?species\b|"
    r"\bwe propose a\b[^.]{0,60}\bmodel\b|\bmodel(?:led|ling) ",
    _I,
)
STUDIED_ONCE = re.compile(
    r"\bwe (?:studied|examined|evaluated|assessed|measured|included|enrolled|recruited|investigated)\b[^.]{0,40}"
    r"\b\d[\d,]*\s+(?:[\w-]+\s+){0,3}(?:patients|participants|subjects|women|men|children|adults|individuals|"
    r"volunteers|people)\b",
    _I,
)
OWN_DATA = re.compile(
    r"\bwe (?:found|find|show|report|demonstrate|identified|documented|observed|measured|estimated|examined|"
    r"investigated|isolated|studied|enrolled|analy[sz]ed)\b",
    _I,
)
CASE_CONTROL = re.compile(
    r"\bcase[- ]control\b|\bcases? and (?:[\w,]+ ){0,3}controls\b|\bmatched controls\b",
    _I,
)
COHORT = re.compile(
    r"\bcohort\b|\bprospective(?:ly)? (?:study|studies|population|observational|followed|evaluat)|"
    r"\b(?:we|were) followed\b|"
    r"\bfollowed (?:up )?(?:for|over|until|to)\b|\bfollow[-–]up (?:of|was|period)\b|\bperson-years\b|"
    r"\bretrospective(?:ly)? (?:study|analy[sz]ed|analysis|review(?:ed)?)\b|\bregistry\b|"
    r"\bduring (?:a |the )?(?:mean |median )?follow[-–]up\b|\bprospectively collected\b",
    _I,
)
CROSS = re.compile(r"\bsurvey\b|\bprevalence\b|\bquestionnaires?\b", _I)  # only where people are named
MEASURED_ONCE = re.compile(
    r"\bcross[- ]sectional(?:ly)?\b|\bvalidat(?:ion|ed|ing)\b|\binternal consistency\b|\breproducibility\b|"
    r"\binter-?(?:rater|observer) (?:agreement|reliability)\b|\bdiagnostic (?:accuracy|capabilit)|"
    r"\bsensitivity and specificity\b",
    _I,
)
CASE_REPORT = re.compile(
    r"\bcase report\b|\bcase series\b|\bwe (?:report|describe|present) (?:a|an|the|two|three|four) "
    r"(?:\w+ ){0,3}(?:cases?|patients?|child|man|woman|boy|girl|adolescent)\b|\ba case of\b|"
    r"\b\d+-year-old (?:man|woman|male|female|boy|girl|patient)\b|\blevel (?:of evidence )?iv\b|"
    r"\b(?:a|one|two|three) (?:family|families|patients?|cases?)\b[^.]{0,80}"
    r"\b(?:is|are|was|were) (?:described|reported|presented)\b",
    _I,
)
ANIMAL = re.compile(
    r"\b(?:mice|mouse|murine|rats?|rodents?|pigs?|porcine|piglets?|dogs?|canine|rabbits?|sheep|monkeys?|"
    r"macaques?|primates?|zebrafish|drosophila|xenopus|c\. elegans|caenorhabditis|hamsters?|ferrets?|"
    r"animals|animal models?|knock-?out|knock-?in|transgenic|in vivo|xenografts?|flies|sprague-dawley|wistar|c57bl/6|"
    r"balb/c)\b",
    _I,
)
IN_VIVO_RESULT = re.compile(  # animal work carrying the finding, not a confirmatory aside
    r"\b(?:mice|rats|animals|pigs|flies|zebrafish|embryos)\b[^.]{0,80}\b(?:develop(?:ed)?|show(?:ed)?|exhibit(?:ed)?|"
    r"were (?:resistant|protected|fed|treated|infected|randomi[sz]ed|given|injected)|had|display(?:ed)?|"
    r"lacking|deficient|underwent|received)\b|"
    r"\b(?:mouse|rat|porcine|murine|animal|knock-?in|knock-?out) models?\b|\bwe (?:engrafted|crossed|inactivated)\b|"
    r"\b(?:mice|rats) (?:lacking|deficient|with|bearing|infected|harboring)\b|"
    r"\b(?:[\w-]+-(?:null|deficient|knockout)|recipient|mutant|knockout|deficient|exposed|treated|septic) "
    r"(?:mice|rats|animals)\b|"
    r"\b(?:immunity|tumou?rs?|disease|responses?|inflammation) in (?:mice|rats)\b",
    _I,
)
IN_VITRO = re.compile(
    r"\b(?:cells?|cell lines?|in vitro|cultured?|cultures|yeast|saccharomyces|bacteria|bacterial|e\. coli|"
    r"escherichia|vibrio|strains?|fibroblasts|plasmids?|crystal structure|cryo-em|structure of|recombinant|"
    r"purified|biochemical|assays?|extracts?|enzyme|protein-protein|promoters?|transcription factors?)\b",
    _I,
)
HUMANS = re.compile(
    r"\b(?:patients|participants|subjects|women|men|children|adults|infants|individuals|persons|people|"
    r"volunteers|cases|controls|girls|boys|adolescents|students|survivors|smokers|pregnancies|mothers|"
    r"prisoners|inhabitants|residents|outpatients|inpatients|admissions|respondents)\b",
    _I,
)
BACKGROUND = re.compile(r"^\s*(?:background|context|importance|introduction|rationale)\b", _I)
SECTION = re.compile(r"^\s*([A-Z][A-Z/&,]+(?: [A-Z/&,]+)*)\b(?![a-z])")
MODELLING = re.compile(
    r"\bmicrosimulation\b|\bdecision[- ](?:analytic(?:al)?|tree) model|\bmarkov model\b|\bsimulation model\b",
    _I,
)
META_STUDY = re.compile(  # a meta-analysis the abstract did, not one it used
    r"meta-?analy\w* of (?:\w+ ){0,3}(?:studies|trials|randomi[sz]ed|cohort|case-control|published|observational)|"
    r"(?:studies|trials)\b[^.]{0,80}\b(?:were|was) (?:included|pooled|combined)|"
    r"\bwe (?:performed|conducted|did|carried out|undertook|report)\b[^.]{0,40}meta-?analy|"
    r"\b(?:this|the present|our) meta-?analy",
    _I,
)
MOUSE_CELLS = re.compile(
    r"\b(?:mouse|murine|rat|hamster)\s+(?:[\w-]+\s+){0,2}(?:cells?|fibroblasts|es|escs|lines?|neurons|"
    r"macrophages|homologs?|genes?|genomes?|epiblast|embryonic stem|lymphocytes?|splenocytes|hepatocytes|keratinocytes|"
    r"cardiomyocytes|adipocytes|progenitors|tissues?|epidermis|subpopulations)\b",
    _I,
)
DIAGNOSTIC = re.compile(
    r"\bdiagnostic (?:accuracy|capabilit\w*|performance|value|yield)\b|\bsensitivity and specificity\b|"
    r"\b(?:positive|negative) predictive values?\b",
    _I,
)
SINGLE_ARM = re.compile(  # an intervention followed in one group: "This prospective study was designed to assess the
    # impact of exercise and respiratory training on ..."
    r"\bprospective(?:ly)? (?:study|trial|evaluation)\b[^.]{0,80}\b(?:impact|effects?|efficacy|benefits?) of "
    r"(?:[\w-]+,? (?:and )?){0,4}(?:training|therapy|treatment|intervention|program(?:me)?|exercise|supplementation|"
    r"rehabilitation)\b",
    _I,
)
COMPARED = re.compile(
    r"\bcontrols?\b|\bcontrol group\b|\bplacebo\b|\bcompared (?:with|to)\b|\bversus\b|\bvs\.?\b",
    _I,
)
EXPOSURE = re.compile(
    r"\brisks?\b|\bodds\b|\bexposures?\b|\bexposed\b|\bassociat\w*|\bpolymorphisms?\b|\bgenotyp\w*|\balleles?\b|"
    r"\bsusceptib\w*|\bgenome-wide\b|\bnested\b",
    _I,
)
EPIDEMIOLOGY = re.compile(  # what studies of people report, in an abstract that tells of others' studies
    r"\bepidemiolog\w*|"
    r"\b(?:clinical|randomi[sz]ed|observational|prospective|cohort|population-based) (?:studies|trials)\b|"
    r"\b(?:incidence|prevalence|mortality|morbidity|risk factors?)\b[^.]{0,60}\b(?:patients|people|subjects|adults|"
    r"children|women|men|populations?)\b",
    _I,
)
OWN_DATA_PASSIVE = re.compile(  # "expression was evaluated in 107 patients", "P = 0.01": own work told passively
    r"\b(?:was|were) (?:evaluated|assessed|measured|analy[sz]ed|examined|studied|found|observed|recruited|enrolled|"
    r"followed|included|randomi[sz]ed)\b|\bp ?[<=]",
    _I,
)
