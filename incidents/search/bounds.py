"""Upper bounds on a case's rank, for ranking only the cases that can reach the first page.

`bm25_idf` (incidents.bm25) is the weight of a word (FTS5's idf, the one `backend.text_rank` ranks with);
`BoundSums` adds up, per case, the bounds of the words it holds, as bit slices of roaring bitmaps,
so that "the cases whose bound reaches the k-th score found so far" (MaxScore, in
`incidents.search.candidates`) is a few bitmap operations.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pyroaring import BitMap

# BoundSums rounds bounds up to this fraction of their total.
BOUND_STEPS = 4096


class BoundSums:
    """Per case, the sum of the weights of the given sets holding it, kept as bit slices (a
    bitmap per binary digit of the sum, weights rounded up to 1/BOUND_STEPS of their total), so
    that "the cases whose sum reaches x" costs a few bitmap operations and no case is visited
    one by one."""

    def __init__(self, weighted: Sequence[tuple[float, BitMap]]) -> None:
        total = sum(w for w, _cases in weighted)
        self.unit = total / BOUND_STEPS if total > 0 else 1.0
        self.cases = BitMap.union(BitMap(), *(cases for _w, cases in weighted))
        self.top_sum = 0
        self.slices: list[BitMap] = []
        for weight, cases in weighted:
            step = math.ceil(weight / self.unit)
            self.top_sum += step
            self._add(step, cases)

    def _add(self, step: int, cases: BitMap) -> None:
        """Add `step` to the sum of each of `cases` (binary addition, ripple carry)."""
        carry, digit = BitMap(), 0
        while step or carry:
            if digit == len(self.slices):
                self.slices.append(BitMap())
            added = cases if step & 1 else BitMap()
            held = self.slices[digit]
            self.slices[digit] = held ^ added ^ carry
            carry = (held & added) | (carry & (held ^ added))
            step, digit = step >> 1, digit + 1

    def _at_least(self, threshold: int) -> BitMap:
        above, equal = BitMap(), BitMap(self.cases)
        for digit in reversed(range(max(len(self.slices), threshold.bit_length()))):
            held = self.slices[digit] if digit < len(self.slices) else BitMap()
            if threshold >> digit & 1:
                equal &= held
            else:
                above |= equal & held
                equal -= held
        return above | equal

    def reaching(self, value: float) -> BitMap:
        """The cases whose sum may reach `value` (every case whose sum does, and a few just
        under it: the weights were rounded up)."""
        return self._at_least(math.floor(value / self.unit))

    def highest(self, count: int) -> BitMap:
        """At least `count` cases (or all) with the highest sums, and few more."""
        low, high = 0, self.top_sum  # _at_least(low) holds >= count cases
        while low < high:
            middle = (low + high + 1) // 2
            if len(self._at_least(middle)) >= count:
                low = middle
            else:
                high = middle - 1
        return self._at_least(low)
