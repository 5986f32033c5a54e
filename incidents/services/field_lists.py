"""What the readers of a case file's lists of mappings (`costs:`, `breakdowns:`) share.

A list entry is read with the same steps wherever it stands: the list itself, then each item as a
mapping whose keys are known, each problem naming where it is (`costs[2].kind`). The keys a case
file allows are the model's own field names, except that a figure cites its source as `source`
(stored as `source_url`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from incidents.services.case_fields import FieldReader


def case_file_keys(fields: Iterable[str], *extra: str) -> set[str]:
    """The keys of an entry whose stored fields are `fields`: `source_url` is written `source`;
    `extra` adds the keys that are not fields (say, a table's `rows`)."""
    return {"source" if name == "source_url" else name for name in fields} | set(extra)


def list_items(
    c: FieldReader,
    value: Any,
    key: str,
    allowed: Iterable[str],
    *,
    list_problem: str,
    item_problem: str,
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each mapping of the list field `key` with where it stands (`costs[2]`), its unknown keys
    reported; absent gives none, a non-list gives `list_problem` and a non-mapping item
    `item_problem` (that item is skipped)."""
    if value is None:
        return
    if not isinstance(value, list):
        c.add(key, list_problem)
        return
    for index, item in enumerate(value):
        where = f"{key}[{index}]"
        if not isinstance(item, dict):
            c.add(where, item_problem)
            continue
        c.unknown_keys(item, allowed, prefix=f"{where}.")
        yield where, item
