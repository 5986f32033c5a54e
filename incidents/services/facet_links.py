"""Keeping each case's implied facet links (the ancestors of the values it is tagged with) in step."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from incidents.models import CaseFacetLink
from incidents.models import FacetValue


def ancestors_by_value() -> dict[int, list[int]]:
    """Map every facet value id to the ids of its ancestors, nearest first (one query)."""
    parent_of = dict(FacetValue.objects.values_list("id", "parent_id"))
    result: dict[int, list[int]] = {}
    for value_id in parent_of:
        chain: list[int] = []
        current: int | None = parent_of[value_id]
        while current is not None and current not in chain and current != value_id:
            chain.append(current)
            current = parent_of.get(current)
        result[value_id] = chain
    return result


def refresh_implied_links(case_ids: Iterable[int] | None = None) -> int:
    """Make the implied links of the given cases (default: all) match their direct links.

    Returns the number of rows created, changed or deleted; 0 when everything was already right.
    """
    ancestors = ancestors_by_value()
    links = CaseFacetLink.objects.all()
    if case_ids is not None:
        links = links.filter(case_id__in=list(case_ids))
    current: dict[int, dict[int, tuple[int, bool]]] = defaultdict(dict)
    for link_id, case_id, value_id, direct in links.values_list(
        "id", "case_id", "value_id", "direct"
    ):
        current[case_id][value_id] = (link_id, direct)

    to_create: list[CaseFacetLink] = []
    to_delete: list[int] = []
    for case_id, rows in current.items():
        direct_ids = {v for v, (_, is_direct) in rows.items() if is_direct}
        implied_ids = {a for v in direct_ids for a in ancestors.get(v, [])} - direct_ids
        for value_id, (link_id, is_direct) in rows.items():
            if not is_direct and value_id not in implied_ids:
                to_delete.append(link_id)
        for value_id in implied_ids - rows.keys():
            to_create.append(CaseFacetLink(case_id=case_id, value_id=value_id, direct=False))
    if to_delete:
        CaseFacetLink.objects.filter(id__in=to_delete).delete()
    if to_create:
        CaseFacetLink.objects.bulk_create(to_create)
    return len(to_create) + len(to_delete)
