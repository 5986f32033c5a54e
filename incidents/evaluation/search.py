"""Search quality and speed: `evaluate_search(items, search_fn)` and `substring_matches`.

A sentence is found when one of its cases is in the first five results; MRR uses the rank of the
first of its cases (0 when none is in the first five). The time of each search is measured
around `search_fn` and reported as p50 and p95.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass

from incidents.evaluation.dataset import EvalItem

TOP = 5


@dataclass(frozen=True)
class Latencies:
    """Times in milliseconds, with their nearest-rank median and 95th percentile."""

    ms: tuple[float, ...]

    @property
    def p50(self) -> float:
        return percentile(self.ms, 50)

    @property
    def p95(self) -> float:
        return percentile(self.ms, 95)


@dataclass(frozen=True)
class SearchFigures:
    """Search quality and time over a set of sentences."""

    sentences: int
    found: int
    reciprocal_ranks: float
    times: Latencies
    missed: tuple[str, ...]  # ids of the sentences none of whose cases is in the top five

    @property
    def recall_at_5(self) -> float:
        return self.found / self.sentences if self.sentences else 1.0

    @property
    def mrr(self) -> float:
        return self.reciprocal_ranks / self.sentences if self.sentences else 1.0


def percentile(values: Sequence[float], pct: float) -> float:
    """The nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)]


def evaluate_search(
    items: Sequence[EvalItem], search_fn: Callable[[str], Sequence[str]]
) -> SearchFigures:
    """Score `search_fn` (text -> case slugs, best first) on the items, timing each call."""
    found = 0
    reciprocal = 0.0
    times: list[float] = []
    missed: list[str] = []
    for item in items:
        start = time.perf_counter()
        ranked = list(search_fn(item.text))[:TOP]
        times.append((time.perf_counter() - start) * 1000)
        ranks = [ranked.index(slug) + 1 for slug in item.cases if slug in ranked]
        if ranks:
            found += 1
            reciprocal += 1 / min(ranks)
        else:
            missed.append(item.id)
    return SearchFigures(len(items), found, reciprocal, Latencies(tuple(times)), tuple(missed))


def substring_matches(
    probes: Sequence[str],
    search_fn: Callable[[str], Sequence[int]],
    holds_word: Callable[[int, str], bool],
) -> list[tuple[str, int]]:
    """(probe, case id) for every case a one-word search for `probe` returns although the case
    does not hold the word as a word (say "tpu" finding a case for its "output")."""
    return [
        (probe, case_id)
        for probe in probes
        for case_id in search_fn(probe)
        if not holds_word(case_id, probe)
    ]
