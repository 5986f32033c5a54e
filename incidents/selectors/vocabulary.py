"""The facet vocabulary held in memory for one request: values by id and slug, and the tree.

Loaded with one query; selectors pass it along so that a page reads the vocabulary once.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from dataclasses import field

from incidents.models import FacetValue


@dataclass
class Vocabulary:
    """All facet values, loaded with one query; small enough to hold whole."""

    values: dict[int, FacetValue]
    by_slug: dict[tuple[str, str], FacetValue] = field(init=False)
    children: dict[int | None, list[FacetValue]] = field(init=False)
    depths: dict[int, int] = field(init=False)
    # Each value's place in the order the values were read in (by facet, then name, as the
    # database sorts them): the order of a case's values on a page.
    position: dict[int, int] = field(init=False)
    # Asked for on every request of a page; a vocabulary is held as long as the library's version.
    _tree_orders: dict[str, list[FacetValue]] = field(init=False, default_factory=dict)
    _slugs: dict[str, list[str]] = field(init=False, default_factory=dict)
    _ids: dict[str, list[int]] = field(init=False, default_factory=dict)
    _choices: dict[str, list[tuple[str, str]]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.by_slug = {(v.facet, v.slug): v for v in self.values.values()}
        self.position = {value_id: place for place, value_id in enumerate(self.values)}
        self.children = defaultdict(list)
        for value in sorted(self.values.values(), key=lambda v: v.name.lower()):
            self.children[value.parent_id].append(value)
        self.depths = {value.id: self._depth(value) for value in self.values.values()}

    @classmethod
    def load(cls, using: str = "default") -> Vocabulary:
        return cls({v.id: v for v in FacetValue.objects.using(using)})

    def slugs(self, facet: str) -> list[str]:
        known = self._slugs.get(facet)
        if known is None:
            known = self._slugs[facet] = sorted(slug for (f, slug) in self.by_slug if f == facet)
        return list(known)

    def slug_choices(self, facet: str) -> list[tuple[str, str]]:
        """The facet's slugs as a form field's choices (made once per vocabulary)."""
        known = self._choices.get(facet)
        if known is None:
            known = self._choices[facet] = [(slug, slug) for slug in self.slugs(facet)]
        return known

    def ids(self, facet: str) -> list[int]:
        """The ids of the facet's values."""
        known = self._ids.get(facet)
        if known is None:
            known = self._ids[facet] = [v.id for v in self.values.values() if v.facet == facet]
        return known

    def get(self, facet: str, slug: str) -> FacetValue | None:
        return self.by_slug.get((facet, slug))

    def roots(self, facet: str) -> list[FacetValue]:
        return [v for v in self.children[None] if v.facet == facet]

    def depth(self, value: FacetValue) -> int:
        """How many ancestors the value has (0 for a root)."""
        known = self.depths.get(value.id)
        return known if known is not None else self._depth(value)

    def _depth(self, value: FacetValue) -> int:
        depth, current = 0, value.parent_id
        while current is not None and depth < 20:
            depth += 1
            current = self.values[current].parent_id
        return depth

    def path(self, value: FacetValue) -> list[FacetValue]:
        """The value's ancestors from the root down, then the value itself."""
        chain = [value]
        while chain[0].parent_id is not None and len(chain) < 20:
            chain.insert(0, self.values[chain[0].parent_id])
        return chain

    def in_tree_order(self, facet: str) -> list[FacetValue]:
        """Every value of a facet, each parent followed by its children (depth first)."""
        known = self._tree_orders.get(facet)
        if known is None:
            known = self._tree_orders[facet] = self._in_tree_order(facet)
        return list(known)

    def _in_tree_order(self, facet: str) -> list[FacetValue]:
        ordered: list[FacetValue] = []

        def walk(items: list[FacetValue]) -> None:
            for item in items:
                ordered.append(item)
                walk(self.children.get(item.id, []))

        walk(self.roots(facet))
        return ordered
