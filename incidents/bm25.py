"""BM25's word weight and constants, one definition for the text search and the suggestion engine.

`bm25_idf` is FTS5's idf, the weight the search ranks with on both databases
(incidents.search.backend) and the like-cases prior ranks the tagged cases with
(incidents.suggest.prior).
"""

from __future__ import annotations

import math

# FTS5's bm25 constant k1: a term adds at most idf * (k1 + 1) to a case's score.
BM25_K1 = 1.2
# BM25's document length normalisation (FTS5's b).
BM25_B = 0.75


def bm25_idf(documents: int, holding: int) -> float:
    """FTS5's idf: log((N - n + 0.5) / (n + 0.5)), and a tiny positive value when not above 0."""
    idf = math.log((documents - holding + 0.5) / (holding + 0.5)) if documents else 0.0
    return idf if idf > 0 else 1e-6
