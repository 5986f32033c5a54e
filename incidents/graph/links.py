"""What the selected cases link to, as plain data: the input of every graph view.

The selector reads it in a constant number of queries (ids only); the overview and the focus
views are computed from it in Python, and labels are read afterwards for the nodes a view lists.
"""

from __future__ import annotations

from collections import Counter
from collections import defaultdict
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field

from incidents.graph.kinds import NodeKey


@dataclass
class CaseLinks:
    """For each case the filters select: everything it links to, and what it was tagged with.

    `items` holds a case's facet values with their ancestors (a case tagged "GPU Xid error"
    also counts under "GPU hardware fault"), its remediations and lessons; `direct` only the
    values it was tagged with, and the same remediations and lessons.
    """

    case_ids: list[int]
    items: defaultdict[int, set[NodeKey]] = field(default_factory=lambda: defaultdict(set))
    direct: defaultdict[int, set[NodeKey]] = field(default_factory=lambda: defaultdict(set))

    def add(self, case_id: int, key: NodeKey, *, direct: bool = True) -> None:
        self.items[case_id].add(key)
        if direct:
            self.direct[case_id].add(key)

    def add_rows(self, rows: Iterable[tuple[int, NodeKey, bool]]) -> None:
        """Many links at once: (case id, node, tagged directly?)."""
        items, direct = self.items, self.direct
        for case_id, key, tagged in rows:
            items[case_id].add(key)
            if tagged:
                direct[case_id].add(key)

    def of(self, case_id: int) -> set[NodeKey]:
        return self.items.get(case_id, set())

    def direct_of(self, case_id: int) -> set[NodeKey]:
        return self.direct.get(case_id, set())

    def cases_with(self, key: NodeKey) -> list[int]:
        """The cases that link to a node (for a value: to it or to a narrower value)."""
        return [c for c in self.case_ids if key in self.items.get(c, ())]

    def counts(
        self, case_ids: Iterable[int] | None = None, *, direct: bool = False
    ) -> Counter[NodeKey]:
        """How many of the cases (all by default) link to each node."""
        source = self.direct if direct else self.items
        counted: Counter[NodeKey] = Counter()
        for case_id in self.case_ids if case_ids is None else case_ids:
            counted.update(source.get(case_id, ()))
        return counted


@dataclass(frozen=True)
class ValueTree:
    """The facet values' tree (parent of each value id), for top-level nodes and expansion."""

    parent: Mapping[int, int | None]
    _children: dict[int | None, list[int]] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for value_id in sorted(self.parent):
            self._children.setdefault(self.parent[value_id], []).append(value_id)

    def children(self, value_id: int) -> list[int]:
        return self._children.get(value_id, [])

    def is_root(self, value_id: int) -> bool:
        return self.parent.get(value_id) is None

    def ancestors(self, value_id: int) -> list[int]:
        found: list[int] = []
        current = self.parent.get(value_id)
        while current is not None and len(found) < 20:
            found.append(current)
            current = self.parent.get(current)
        return found
