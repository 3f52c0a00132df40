"""Evidence scoring: pure functions the graph's nodes apply to passages, claims and rankings.

One module per job: `quantitative` (numeric-claim extraction and weight), `dedup` (semantic claim merging
with a chemical-identifier guard), `triangulation` (cross-source support), `novelty` (near-duplicate
demotion in a ranking), `chunking` (section-aware passages), `aspect` (does a record name a statement's subject
and object), `court` (passage weights, a hypothesis's score and verdict, the margin), `calibration` (the evidence
score and its calibrated probabilities).
"""
