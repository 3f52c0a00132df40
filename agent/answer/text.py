"""The answer as the terminal prints it (`sparkit ask`, `sparkit verify`, `sparkit resume`), written to be read
without a key: every label says what it is and every number what it is a number of.

- a lean speaks as a lean: under LEANING the verdict line and the hypotheses' readings say "leans", never the bare
  SUPPORT / SUPPORTED a confident answer prints;
- a score is printed as what it is (`Answer.scores`): a probability without a sign, the court's evidence score
  (support minus contradiction, which may be negative) with one;
- each checked claim says why it is VERIFIED, CONTESTED or UNVERIFIED in words ("no other source bears it out: only
  the paper it is quoted from says so"), in full;
- the papers' meter has a legend and every column a header (agent/answer/papers_text.py);
- a reference shows its year and source where they are known, and nothing where they are not.
"""

from __future__ import annotations

from agent.answer.papers_text import paper_lines
from agent.answer.usage_text import render_by_node
from agent.common.text import truncate
from agent.literature import Citation
from agent.records import Answer, Claim, ClaimVerdict, Hypothesis, HypothesisVerdict

LEAN_VERDICT = {"SUPPORT": "leans SUPPORT", "CONTRADICT": "leans CONTRADICT"}
LEAN_READING = {HypothesisVerdict.SUPPORTED: "leans supported", HypothesisVerdict.CONTRADICTED: "leans contradicted"}
SCORE_HEADER = {
    "probability": "probability that it is right (the verdict model's)",
    "blend": "score (the adjudicating model's blend, 0 to 1)",
    "evidence": "evidence score (support minus contradiction; not a probability)",
}
UNNAMED_SOURCES = {"local", ""}  # the offline corpus: the "Searched:" line names it


def confidence_shown(answer: Answer) -> str:
    """The status line's confidence, saying what it is the confidence in: an answer's is its probability of being
    right; an abstention's is the probability that "insufficient evidence" is right, and is labelled so (a bare
    "confidence 0.56" on every abstention read as a confidence in some answer); a run stopped by its budget without
    an answer or by an error shows none."""
    if answer.status.value == "LEANING":
        return f"   probability that the lean is right {answer.confidence:.2f}"
    if not answer.abstained and answer.status.value != "ERROR":
        return f"   confidence {answer.confidence:.2f}"
    if answer.status.value == "INSUFFICIENT_EVIDENCE":
        return f"   confidence that the evidence is insufficient {answer.confidence:.2f}"
    return ""


def leaning(answer: Answer) -> bool:
    return answer.tier == "leaning"


def verdict_line(answer: Answer) -> str:
    """'Verdict: SUPPORT', or under LEANING 'Verdict: leans SUPPORT (a lean, not a confident verdict)'."""
    if answer.verdict is None:
        return ""
    if leaning(answer) and answer.verdict in LEAN_VERDICT:
        return f"Verdict: {LEAN_VERDICT[answer.verdict]} (a lean, not a confident verdict)"
    return f"Verdict: {answer.verdict}"


def reading_of(hypothesis: Hypothesis, answer: Answer) -> str:
    """The court's reading of one hypothesis, as a lean under LEANING."""
    if leaning(answer) and hypothesis.verdict in LEAN_READING:
        return LEAN_READING[hypothesis.verdict]
    return hypothesis.verdict.value


def score_shown(hypothesis: Hypothesis, answer: Answer) -> str:
    return f"{hypothesis.score:+.2f}" if answer.scores == "evidence" else f"{hypothesis.score:.2f}"


def hypothesis_lines(answer: Answer) -> list[str]:
    """The hypotheses weighed, each with its score (as what it is), the weighted evidence for and against it and the
    court's reading, under a header that names each column."""
    if not answer.hypotheses:
        return []
    rows = [
        (h.id, score_shown(h, answer), f"{h.support:.2f} / {h.contradiction:.2f}", reading_of(h, answer), h.text)
        for h in sorted(answer.hypotheses, key=lambda h: -h.score)
    ]
    width = max(len("reading"), *(len(r[3]) for r in rows))
    lines = ["Hypotheses weighed (the competing answers the court read the evidence against):"]
    lines.append(f"  score: {SCORE_HEADER[answer.scores]}")
    lines.append(f"  {'id':<4} {'score':>6}  {'for / against':>13}  {'reading':<{width}}  hypothesis")
    for hid, score, sides, reading, text in rows:
        lines.append(f"  {hid:<4} {score:>6}  {sides:>13}  {reading:<{width}}  {truncate(text, 100)}")
    return lines


def ids(record_ids: list[str]) -> str:
    return f"[{', '.join(record_ids)}]"


def claim_reason(claim: Claim) -> str:
    """Why a checked claim has its verdict, in the words a scientist uses (agent/nodes/verify_claims.py decides it:
    VERIFIED needs a confident supporting reading from another document and source than the one quoted, 2 or more
    independent sources in all, and no strong refutation)."""
    others = [rid for rid in claim.supporting if rid not in claim.sources]
    quoted_from = f"the paper it is quoted from {ids(claim.sources)}" if claim.sources else "no paper it is quoted from"
    against = f"; read against it: {ids(claim.refuting)}" if claim.refuting else ""
    if claim.verdict == ClaimVerdict.VERIFIED:
        return f"borne out by {claim.independent_sources} independent sources: {ids(others)} besides {quoted_from}"
    if claim.verdict == ClaimVerdict.CONTESTED:
        backing = f"for it {ids(claim.supporting)}" if claim.supporting else "for it none"
        return f"sources disagree: {backing}, against it {ids(claim.refuting)}"
    if not others:
        return f"no other source bears it out: only {quoted_from} says so (a quote does not confirm itself){against}"
    plural = "s" if claim.independent_sources != 1 else ""
    return (
        f"other sources {ids(others)} read for it, but only {claim.independent_sources} independent source{plural} "
        f"in all, too few to verify it{against}"
    )


def claim_lines(answer: Answer) -> list[str]:
    """Each checked claim: its verdict and the quoted sentence, then why, in full, under it."""
    if not answer.claims:
        return []
    lines = ["Claims checked (each quoted sentence, against other sources than the one it is quoted from):"]
    for claim in answer.claims:
        lines.append(f'  {claim.verdict.value:<10}  "{truncate(claim.text, 110)}"')
        lines.append(f"  {'':<10}  {claim_reason(claim)}")
    return lines


def reference_line(citation: Citation) -> str:
    """'[id] Title (2011), arxiv, p. 4': the year, the source and the place in the document where they are known;
    the offline corpus is named once, on the "Searched:" line, not on every reference."""
    title = citation.title.rstrip()
    details = [str(citation.year)] if citation.year else []
    if citation.source not in UNNAMED_SOURCES:
        details.append(citation.source)
    if citation.where():
        details.append(citation.where())
    if citation.doi:
        details.append(f"doi:{citation.doi}")
    return f"  [{citation.id}] {title}" + (f" ({', '.join(details)})" if details else "")


def render(answer: Answer) -> str:
    """The human-readable answer: status, verdict, answer and its quotes, papers, hypotheses, claims, references,
    why the run stopped and what it used."""
    task = "yes/no" if answer.task == "polar" else answer.task
    lines = [f"Status: {answer.status.value}{confidence_shown(answer)}   task {task}   run {answer.run_id}"]
    if answer.searched:
        lines.append(f"Searched: {answer.searched}")
    lines += list(filter(None, [verdict_line(answer)]))
    lines += ["", f"Answer: {answer.answer}"]
    for sentence in answer.sentences:
        lines.append(f"  - {sentence.text} [{', '.join(sentence.citations)}]")
    if answer.faithfulness is not None:
        lines.append(
            f"Faithfulness: {answer.faithfulness:.2f} (the share of the answer's cited statements that the passages "
            "they cite support, as the stance models read them)"
        )
    if answer.papers:
        lines += ["", *paper_lines(answer.papers)]
    if answer.hypotheses:
        lines += ["", *hypothesis_lines(answer)]
    if answer.adjudication is not None:  # the model's choice, the evidence's, and the blend the answer follows
        adj = answer.adjudication
        blend = ", ".join(f"{hid} {value:.2f}" for hid, value in sorted(adj.blend.items(), key=lambda kv: -kv[1]))
        lines += [
            "",
            f"Adjudication ({adj.model}): model chose {adj.model_choice or 'to abstain'}, evidence favours "
            f"{adj.evidence_choice or 'none'}; blend "
            f"{blend}{' (contested)' if adj.contested else ''}{' (abstained)' if adj.abstained else ''}",
        ]
        for j in adj.judgements:
            lines.append(
                f"  {j.hypothesis_id} {j.judgement:<9} p={j.probability:.2f} [{', '.join(j.evidence)}] {j.reason[:90]}"
            )
    if answer.claims:
        lines += ["", *claim_lines(answer)]
    if answer.citations:
        lines += ["", "References:", *(reference_line(c) for c in answer.citations)]
    u = answer.usage
    lines += [
        "",
        f"Stopped: {answer.stop_reason}",
        f"Usage: {u.llm_calls} LLM calls{f' ({u.llm_retries} of them retries)' if u.llm_retries else ''}, "
        f"{u.source_calls} source calls, {u.cache_hits} cache hits, "
        f"${u.cost_usd:.4f}, {u.wall_time_s:.1f} s"
        + (f" (and {u.setup_s:.1f} s of set-up before it: models, index)" if u.setup_s >= 0.1 else ""),
    ]
    if u.by_node:
        lines += ["Usage by node:", render_by_node(u.by_node)]
    if u.fallbacks:
        lines.append(f"Fallbacks: {'; '.join(u.fallbacks[:5])}")
    for note in answer.notes[:8]:
        lines.append(f"Note: {note}")
    return "\n".join(lines)
