"""How pieces of evidence add up to a value's score.

They combine as independent chances (`noisy_or`: 1 - the product of their misses): a value's distinct terms
(`explicit_score`), the words distinctive of the cases tagged with it (`learned_evidence`, at
most `weights.LEARNED_WEIGHT`), and for a parent the explicit evidence of its children
(`with_children`), so that when no specific value is certain enough the broader one may be.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from collections.abc import Sequence

from incidents.suggest import weights
from incidents.suggest.lexicon import Lexicon
from incidents.suggest.lexicon import Term
from incidents.suggest.matching import Hit
from incidents.suggest.words import Token


def noisy_or(*chances: float | Iterable[float]) -> float:
    """Independent chances combined: 1 - the product of their misses (noisy-or). Each argument
    is a chance or an iterable of chances; none gives 0."""
    miss = 1.0
    for chance in chances:
        for c in (chance,) if isinstance(chance, float | int) else chance:
            miss *= 1 - c
    return 1 - miss


def explicit_score(hits: Sequence[Hit]) -> float:
    """A value's explicit score: its distinct terms found count as independent chances, but
    everyday words flagged `ambiguous` ("node", "servers") do not confirm one another."""
    best: dict[Term, float] = {}
    for hit in hits:
        best[hit.term] = max(best.get(hit.term, 0.0), hit.score)
    if all(term.ambiguous for term in best):
        return max(best.values())
    return noisy_or(best.values())


def learned_evidence(
    lexicon: Lexicon, words: Sequence[Token], covered: set[int]
) -> tuple[dict[int, float], dict[int, list[str]]]:
    """Learned evidence per value from the words no explicit match used."""
    raw: dict[int, float] = defaultdict(float)
    contributions: dict[int, list[tuple[float, str]]] = defaultdict(list)
    seen: set[str] = set()
    for index, word in enumerate(words):
        if index in covered or word.stem in seen:
            continue
        seen.add(word.stem)
        for value_id, weight in lexicon.evidence.get(word.stem, []):
            raw[value_id] += weight
            contributions[value_id].append((weight, word.written))
    scores = {
        v: weights.LEARNED_WEIGHT * min(1.0, r / weights.LEARNED_SATURATION)
        for v, r in raw.items()
        if len(contributions[v]) >= weights.LEARNED_MIN_WORDS
    }
    strongest = {
        v: [w for _weight, w in sorted(c, reverse=True)[:3]] for v, c in contributions.items()
    }
    return scores, strongest


def with_children(
    lexicon: Lexicon, own: dict[int, float], explicit: dict[int, float]
) -> dict[int, float]:
    """Each value's score, a parent's also collecting what named its children (bottom up).

    Only explicit evidence climbs to a parent: learned words are spread over many related
    values, and a parent collecting all of them would be suggested for any text on its topic.
    """
    lifted: dict[int, float] = {}

    def subtree(value_id: int, depth: int = 0) -> float:
        if value_id not in lifted:
            children = lexicon.children.get(value_id, []) if depth < 20 else []
            lifted[value_id] = noisy_or(
                explicit.get(value_id, 0.0), (subtree(c, depth + 1) for c in children)
            )
        return lifted[value_id]

    relevant = set(own)
    for value_id in own:
        relevant.update(lexicon.ancestors(value_id))
    total = {}
    for value_id in relevant:
        score = noisy_or(
            own.get(value_id, 0.0), (subtree(c) for c in lexicon.children.get(value_id, []))
        )
        if score > 0:
            total[value_id] = score
    return total
