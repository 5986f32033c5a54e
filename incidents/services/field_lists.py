"""What the readers of a case file's lists of mappings (`costs:`, `breakdowns:`) share.

A list entry is read with the same steps wherever it stands: the list itself, then each item as a
mapping whose keys are known, each problem naming where it is (`costs[2].kind`). The keys a case
file allows are the model's own field names, except that a figure cites its source as `source`
(stored as `source_url`).
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any

if TYPE_CHECKING:
    from incidents.services.case_fields import FieldReader


def case_file_keys(fields: Iterable[str], *extra: str) -> frozenset[str]:
    """The keys of an entry whose stored fields are `fields`: `source_url` is written `source`;
    `extra` adds the keys that are not fields (say, a table's `rows`)."""
    return frozenset({"source" if name == "source_url" else name for name in fields} | set(extra))


def list_items(c: FieldReader, value: Any, key: str, expected: str) -> list[Any]:
    """The items of an optional list: none when it is absent, none and a problem (the list
    `must be {expected}`) when it is not a list."""
    if value is None:
        return []
    if not isinstance(value, list):
        c.add(key, f"must be {expected}")
        return []
    return value


@dataclass(frozen=True)
class ListOf:
    """A case file's list of mappings: its key, the keys an item may have, and, for the
    messages, what the list holds and the keys an item needs."""

    key: str
    allowed: frozenset[str]
    holds: str  # "tables (slug, title, source, locator, rows)"
    needs: str  # "slug, title, source, locator and rows"

    def items(self, c: FieldReader, value: Any) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each mapping with where it stands (`costs[2]`), its unknown keys reported; absent
        gives none, and a non-list or a non-mapping item a problem (that item is skipped)."""
        for index, item in enumerate(list_items(c, value, self.key, f"a list of {self.holds}")):
            where = f"{self.key}[{index}]"
            if not isinstance(item, dict):
                c.add(where, f"must be a mapping with {self.needs}")
                continue
            c.unknown_keys(item, self.allowed, prefix=f"{where}.")
            yield where, item
