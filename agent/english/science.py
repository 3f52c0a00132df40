"""Is a word English scientific vocabulary? The language gate (agent/english/language.py) counts the share of a
question's words that English knows, and symspellpy's 82,765-word list, built from Google Books, lacks most of what a
biomedical question is made of: 'hydroxychloroquine', 'cytokine', 'xanthogranulomatous', 'cholecystitis', and even
the American spellings 'tumor', 'pediatric', 'leukemia' (it has 'tumour'). "Xanthogranulomatous cholecystitis: a
premalignant condition?" then had half its words unknown and was refused as French.

No term list ships with the packages this project installs (scispaCy's models and the UMLS are downloads), so the
vocabulary is read from how such words are made, which is regular: Greek and Latin word endings ('-itis', '-osis',
'-emia', '-ectomy', '-cyte', '-genesis'), chemical and drug-name stems ('-amine', '-azole', '-mab', '-statin',
'-mycin'), Latin anatomical and taxonomic forms ('arteriosus', 'intestinalis', 'cerevisiae'), combining forms
('cardio', 'hepato', 'granulo': two in one word make it a term), an English word behind a prefix ('premalignant',
'proinflammatory', 'microenvironment'), and American spellings of British words ('tumor' -> 'tumour'). Only lower-case
ASCII words of five letters or more are read: French 'cholécystite' or German 'Präkanzerose' are not English terms,
and a short word is too easily a foreign one. A few foreign words have English-looking endings ('aspirine',
'vitamine'); one in a question moves its share by one word.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MIN_LETTERS = 5
_ASCII_WORD = re.compile(r"^[a-z]+$")

# Endings of Greek and Latin medical, biological and chemical terms (checked longest first by endswith).
SUFFIXES = tuple(
    """itis itides osis oses iasis emia aemia emic aemic ectomy ectomies otomy ostomy plasty scopy scopic graphy graphic
    pathy pathies pathic plasia plastic plasm trophy trophic megaly algia penia philia uria oma omas omata omatous
    omatosis cyte cytes cytic cytosis blast blasts blastic blastoma genic genesis genetic genicity lysis lytic philic
    phobic ase ases amine amines azole azoles idine idines oxin oxins mab mabs nib nibs tinib pril prils sartan statin
    statins olol mycin mycins cillin cyclin cyclins cycline vir virs oxacin azepam prazole oid oids oidal ergic tropic
    tropin cidal static kinase kinases kine kines some somes omes omics omic virus viruses viral bacter bacteria
    bacterial coccus cocci phage phages ptosis rrhea rrhoea rrhage cele cardia pnea pnoea ploidy ptide ptides
    protein proteins globin globulin lipid lipids ocyte ocytes ectasia ostasis stasis trophin ylation ylated ylase
    amide amides imide imine inase inases ogenic ogenous ular ulin ulins inin inins ferase ferases osome osomes
    osus osum alis aris ensis icus inum iae ium ites itic otic ergy quine azine apine etine aline oline antine
    ysine eine poietic poiesis ogous eneic mere meres tinib tide tides""".split()
)
# Greek and Latin combining forms: two in one word ('xantho' + 'granul', 'hepato' + 'splen') make it a term.
COMBINING = tuple(
    """cardi hepat nephr neur gastr enter chol cyst xanth granul lymph leuk erythr haem hem angi arthr oste myel
    derm pneum pulmon bronch carcin onc path cyt gen lip glyc gluc prote nucle aden adip bili calc cerebr chondr col
    cortic crani dent encephal endocrin endotheli epitheli fibr gingiv gloss gluc gynec hist hormon hyster immun kerat
    lact laryng lig mamm mening metr morph muc nas necr neutr ocul odont ophthalm orchid ost ovar pancrea pept
    pharmac phleb phot plasm pleur psych pyel ren rhin sarc scler sept splen spondyl staphyl steat sten strept synov
    tachy thorac thromb thym thyr tox trache trich uter vas vascul ven ventr vir viscer vitr zyg bio chem electr
    radi therm micro macro nano""".split()
)
# A prefix before an English word makes a term of it ('premalignant', 'proinflammatory', 'intracellular').
PREFIXES = tuple(
    """pre post pro anti non sub hyper hypo intra inter peri trans pseudo poly multi semi micro macro neo para meta endo
    exo extra infra supra ultra auto immuno neuro cardio onco bio nano photo electro radio thermo chemo myelo hemato
    hepato nephro gastro entero osteo glyco lipo proto iso homo hetero mono tri tetra over under down up co de dis re
    un mis cyto geno patho pharmaco psycho socio epi pluri sero cryo retro hydroxy phospho""".split()
)
# American spellings whose British form the English list has ('tumor' -> 'tumour', 'pediatric' -> 'paediatric').
_BRITISH = (
    (re.compile(r"or(s?)$"), r"our\1"),
    (re.compile(r"oral$"), "oural"),
    (re.compile(r"eling$|eled$"), lambda m: "ell" + m.group(0)[1:]),
    (re.compile(r"^ped"), "paed"),
    (re.compile(r"^(h|an|leuk|isch|hyperglyc|hypoglyc|septic|tox)em"), r"\1aem"),
    (re.compile(r"emia$|emic$"), lambda m: "a" + m.group(0)),
    (re.compile(r"^estr"), "oestr"),
    (re.compile(r"^esoph"), "oesoph"),
    (re.compile(r"^edema"), "oedema"),
    (re.compile(r"iz(e|es|ed|ing|ation|ations)$"), r"is\1"),
    (re.compile(r"yz(e|es|ed|ing)$"), r"ys\1"),
    (re.compile(r"ter$"), "tre"),
    (re.compile(r"ense$"), "ence"),
    (re.compile(r"^fetus|^fetal"), lambda m: "foe" + m.group(0)[2:]),
)


def british(word: str) -> list[str]:
    """The British spellings an American `word` may have ('tumor' -> ['tumour'])."""
    forms = []
    for pattern, replacement in _BRITISH:
        changed = pattern.sub(replacement, word, count=1)
        if changed != word:
            forms.append(changed)
    return forms


def is_scientific(word: str, english: Callable[[str], bool]) -> bool:
    """Whether `word` (lower case) is made as a Greek or Latin scientific term is, or is an English word (`english`
    says which are) behind a scientific prefix or in its American spelling."""
    if len(word) < MIN_LETTERS or not _ASCII_WORD.match(word):
        return False
    if any(english(form) for form in british(word)):
        return True
    if word.endswith(SUFFIXES) and len(word) >= 6:
        return True
    for prefix in PREFIXES:
        rest = word[len(prefix) :]
        if word.startswith(prefix) and len(rest) >= 4 and (english(rest) or rest.endswith(SUFFIXES)):
            return True
    return sum(form in word for form in COMBINING) >= 2 and len(word) >= 8
