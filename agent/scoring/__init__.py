"""Evidence scoring: pure functions the graph's nodes apply to passages, claims and rankings.

One module per job: `quantitative` (numeric-claim extraction and weight), `dedup` (semantic claim merging
with a chemical-identifier guard), `triangulation` (cross-source support), `novelty` (near-duplicate
demotion in a ranking), `chunking` (section-aware passages).
"""

from agent.scoring.chunking import Chunk, chunk_document, chunk_record, chunk_sentences
from agent.scoring.dedup import ClaimGroup, chemical_identifiers, dedup_claims, dedup_texts
from agent.scoring.novelty import NoveltyRanking, novelty_rerank
from agent.scoring.quantitative import QuantMatch, extract_quantities, quantitative_weight
from agent.scoring.triangulation import authority_weight, record_triangulation, triangulation_score

__all__ = [
    "Chunk",
    "ClaimGroup",
    "NoveltyRanking",
    "QuantMatch",
    "authority_weight",
    "chemical_identifiers",
    "chunk_document",
    "chunk_record",
    "chunk_sentences",
    "dedup_claims",
    "dedup_texts",
    "extract_quantities",
    "novelty_rerank",
    "quantitative_weight",
    "record_triangulation",
    "triangulation_score",
]
