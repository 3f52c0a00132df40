"""The model adjudicates, the evidence checks it: blend the chat model's judgement with the court's evidence.

final score of hypothesis i = model_share x p_model(i) + (1 - model_share) x evidence_share(i)   (seed 000: 70 / 30)

- p_model: the model's probabilities normalised over the hypotheses; a hypothesis it did not judge, or judged without
  citing a passage it was shown, counts as uninformative (1 / k).
- evidence_share: MCQ, the semantic evidence share (each option's closest passages, seed 000); claims and open
  questions, each hypothesis's share of the positive stance score mass (the court's ledger).
The answer follows the blend; it abstains when the chosen hypothesis's blend is below `adjudication_abstain_below`.
A model that abstains ("abstain", or every hypothesis "undecided") binds: its probabilities count as uninformative
and the run states no verdict; it may still lean towards the evidence's choice when that choice holds at least
`abstain_lean_share` of the evidence (a rule that fires with two hypotheses, where a blend under 0.3 never can).
When the model and the evidence each give their own choice at least `contested_share`, the point is contested: the
trace shows it and the court's edge may take another discrimination round.
"""

from __future__ import annotations

from agent.interfaces import ModelVerdict
from agent.records import Adjudication, Hypothesis


def shares(scores: list[float]) -> list[float]:
    """Each value's share of the positive mass (all zero when there is none)."""
    positive = [max(s, 0.0) for s in scores]
    total = sum(positive)
    return [p / total for p in positive] if total > 0 else [0.0] * len(scores)


def blend(
    hypotheses: list[Hypothesis],
    verdict: ModelVerdict,
    evidence_share: list[float],
    model_share: float,
    abstain_below: float,
    contested_share: float,
    lean_share: float = 0.7,
) -> Adjudication:
    ids = [h.id for h in hypotheses]
    uninformative = 1.0 / len(ids)
    judged = {j.hypothesis_id: j.probability for j in verdict.judgements}
    raw = [judged.get(i, uninformative) for i in ids]
    model_p = [p / sum(raw) for p in raw] if sum(raw) > 0 and not verdict.abstained else [uninformative] * len(ids)
    has_evidence = sum(evidence_share) > 0
    evidence = evidence_share if has_evidence else [uninformative] * len(ids)
    mixed = [model_share * m + (1 - model_share) * e for m, e in zip(model_p, evidence)]
    best = max(range(len(ids)), key=lambda k: mixed[k])
    evidence_choice = ids[max(range(len(ids)), key=lambda k: evidence[k])] if has_evidence else None
    model_choice = verdict.choice if verdict.choice in ids else None
    clear = has_evidence and max(evidence) >= lean_share
    abstained = mixed[best] < abstain_below or (verdict.abstained and not clear)
    contested = bool(
        model_choice
        and evidence_choice
        and model_choice != evidence_choice
        and model_p[ids.index(model_choice)] >= contested_share
        and evidence[ids.index(evidence_choice)] >= contested_share
    )
    notes = list(verdict.notes)
    if verdict.abstained:
        notes.append(
            f"the model abstained; the evidence alone favours {ids[best]} with share {evidence[best]:.2f}, so the "
            "answer can only lean"
            if clear
            else f"the model abstained and no answer holds {lean_share:.2f} of the evidence: insufficient evidence"
        )
    if contested and model_choice and evidence_choice:
        notes.append(
            f"contested: the model chose {model_choice} (p={model_p[ids.index(model_choice)]:.2f}), "
            f"the evidence {evidence_choice} (share {evidence[ids.index(evidence_choice)]:.2f})"
        )
    return Adjudication(
        model=verdict.model,
        judgements=verdict.judgements,
        model_choice=model_choice,
        evidence_choice=evidence_choice,
        model_probability={i: round(p, 4) for i, p in zip(ids, model_p)},
        evidence_share={i: round(e, 4) for i, e in zip(ids, evidence)},
        blend={i: round(b, 4) for i, b in zip(ids, mixed)},
        choice=None if abstained else ids[best],
        abstained=abstained,
        model_abstained=verdict.abstained,
        contested=contested,
        notes=notes,
    )


def apply(hypotheses: list[Hypothesis], adjudication: Adjudication) -> list[Hypothesis]:
    """The hypotheses scored by the blend (their support, contradiction and verdict stay the evidence's)."""
    return [
        h.model_copy(update={"score": adjudication.blend[h.id]}) if h.id in adjudication.blend else h
        for h in hypotheses
    ]
