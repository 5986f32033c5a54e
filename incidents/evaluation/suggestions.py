"""Suggestion precision and recall: `evaluate_suggestions(items, suggest_fn)`.

A suggested value in an item's `values` is a hit, one in `also_ok` counts neither way, any other
is wrong. Precision = hits / (hits + wrong); recall = hits / number of gold values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from incidents.evaluation.dataset import EvalItem


@dataclass(frozen=True)
class SuggestionFigures:
    """Suggestion quality over a set of sentences."""

    sentences: int
    hits: int
    wrong: int
    gold: int

    @property
    def precision(self) -> float:
        return self.hits / (self.hits + self.wrong) if self.hits + self.wrong else 1.0

    @property
    def recall(self) -> float:
        return self.hits / self.gold if self.gold else 1.0


def evaluate_suggestions(
    items: Sequence[EvalItem], suggest_fn: Callable[[str], Iterable[str]]
) -> SuggestionFigures:
    """Score `suggest_fn` (text -> suggested values as `facet:slug`) on the items."""
    hits = wrong = gold = 0
    for item in items:
        suggested = set(suggest_fn(item.text))
        hits += len(suggested & item.values)
        wrong += len(suggested - item.values - item.also_ok)
        gold += len(item.values)
    return SuggestionFigures(len(items), hits, wrong, gold)
