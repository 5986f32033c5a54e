"""Share what the objects of one snapshot repeat, so 100,000 pods fit in a few hundred MB.

The replicas of a workload carry the same containers, volumes, labels, owners and tolerations;
every pod of a node pool the same resources. :class:`Sharer` keeps one copy of each equal value
found one level below an object's top-level fields (``spec.containers``, ``metadata.labels``,
``status.capacity``...) and interns the short strings there (phases, node names, namespaces).
Nothing in kubegap changes an object after it is read, so sharing is invisible to the checks;
:func:`shared_values` counts what was shared, which tests use to see that it happens.
"""

from __future__ import annotations

import sys
from typing import Any

from .jsonio import dumps_plain
from .k8s import Obj

MAX_INTERNED = 80


class Sharer:
    """One per snapshot being read: equal values found so far, by their JSON text."""

    def __init__(self) -> None:
        self._seen: dict[bytes, Any] = {}

    def __call__(self, obj: Obj) -> Obj:
        """``obj`` with its second-level values replaced by the first equal copy seen (in place)."""
        seen, intern, text = self._seen, sys.intern, dumps_plain
        for part in obj.values():
            if type(part) is not dict:
                continue
            for key, value in part.items():
                kind = type(value)
                if kind is str:
                    if len(value) <= MAX_INTERNED:
                        part[key] = intern(value)
                elif (kind is dict or kind is list) and value:
                    try:
                        part[key] = seen.setdefault(text(value), value)
                    except (TypeError, ValueError):
                        pass  # not JSON (a YAML oddity): kept unshared
        return obj

    def __len__(self) -> int:
        return len(self._seen)


def shared_values(objects: list[Obj]) -> int:
    """How many second-level values of ``objects`` are the very object another one holds."""
    ids: dict[int, int] = {}
    for obj in objects:
        for part in obj.values():
            if isinstance(part, dict):
                for value in part.values():
                    if isinstance(value, dict | list) and value:
                        ids[id(value)] = ids.get(id(value), 0) + 1
    return sum(n - 1 for n in ids.values())
