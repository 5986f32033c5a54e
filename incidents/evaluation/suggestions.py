"""Suggestion precision and recall on the retrieval evaluation set.

A suggested value in a sentence's `values` is a hit, one in `also_ok` counts neither way, any
other is wrong: precision = hits / (hits + wrong), recall = hits / gold values
(tests/data/README.md). `evaluate_suggestions` is pure: it takes the sentences and a function
from text to `facet:slug` strings.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Protocol

import yaml


@dataclass(frozen=True)
class EvalItem:
    """One sentence of the evaluation set, as far as suggestions are concerned."""

    id: str
    split: str
    text: str
    values: frozenset[str]
    also_ok: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ItemResult:
    """What the engine got right, missed and wrongly added for one sentence."""

    id: str
    hits: tuple[str, ...]
    missed: tuple[str, ...]
    wrong: tuple[str, ...]


@dataclass(frozen=True)
class SuggestionScores:
    """Precision and recall over a set of sentences, with each sentence's misses."""

    precision: float
    recall: float
    hits: int
    wrong: int
    gold: int
    items: list[ItemResult] = field(default_factory=list)

    @property
    def misses(self) -> list[ItemResult]:
        return [i for i in self.items if i.missed or i.wrong]


class Sentence(Protocol):
    """What scoring needs of a sentence (this module's EvalItem, or evaluation.dataset's)."""

    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def values(self) -> frozenset[str]: ...
    @property
    def also_ok(self) -> frozenset[str]: ...


def evaluate_suggestions(
    items: Iterable[Sentence], suggest_fn: Callable[[str], Sequence[str]]
) -> SuggestionScores:
    """Score `suggest_fn` (text -> suggested `facet:slug`s) on the sentences."""
    results = []
    hits = wrong = gold = 0
    for item in items:
        suggested = set(suggest_fn(item.text))
        found = suggested & item.values
        bad = suggested - item.values - item.also_ok
        results.append(
            ItemResult(
                item.id,
                tuple(sorted(found)),
                tuple(sorted(item.values - suggested)),
                tuple(sorted(bad)),
            )
        )
        hits, wrong, gold = hits + len(found), wrong + len(bad), gold + len(item.values)
    return SuggestionScores(
        precision=hits / (hits + wrong) if hits + wrong else 1.0,
        recall=hits / gold if gold else 1.0,
        hits=hits,
        wrong=wrong,
        gold=gold,
        items=results,
    )


# The name evaluation.retrieval reports suggestions under.
SuggestionFigures = SuggestionScores


def load_items(path: Path, *, split: str | None = None) -> list[EvalItem]:
    """The sentences of an evaluation file, of one split (tune, report) or all."""
    # libyaml's safe loader where PyYAML has it: the evaluation set reads in 25 ms, not 250
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - safe
    return [
        EvalItem(
            id=s["id"],
            split=s["split"],
            text=s["text"],
            values=frozenset(s.get("values") or ()),
            also_ok=frozenset(s.get("also_ok") or ()),
        )
        for s in data["sentences"]
        if split is None or s["split"] == split
    ]
