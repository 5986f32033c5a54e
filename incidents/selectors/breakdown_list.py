"""The filterable list of breakdown tables (for the API): the library's filters apply to the
owning case, through `case_queryset`, and two unit filters to the table itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.db.models import QuerySet

from incidents.models import Breakdown
from incidents.models import CostUnit
from incidents.models import CountUnit
from incidents.selectors.breakdowns import breakdowns_of
from incidents.selectors.cases import CaseQuery
from incidents.selectors.cases import Params
from incidents.selectors.cases import case_queryset

# The list's own parameters, with the values each may take (repeatable; any of them matches).
UNIT_FILTERS: dict[str, list[str]] = {
    "counted": list(CountUnit.values),
    "cost_unit": list(CostUnit.values),
}


@dataclass(frozen=True)
class BreakdownQuery:
    """The breakdown tables a request selects, and what was wrong with its parameters."""

    queryset: QuerySet[Breakdown]
    errors: dict[str, list[str]]
    cases: CaseQuery


def breakdown_queryset(*, params: Params) -> BreakdownQuery:
    """Tables of the cases the library's filters select, narrowed by `counted` and `cost_unit`
    (repeatable; a table matches any value given). Unknown values are named in `errors`."""
    cases = case_queryset(params=params)
    errors = dict(cases.errors)
    queryset = breakdowns_of(cases.queryset)
    for name, allowed in UNIT_FILTERS.items():
        wanted = _values(params, name)
        unknown = [v for v in wanted if v not in allowed]
        if unknown:
            errors[name] = [f"{v!r} is not one of {', '.join(allowed)}" for v in unknown]
        if wanted:
            queryset = queryset.filter(**{f"{name}__in": [v for v in wanted if v in allowed]})
    return BreakdownQuery(queryset, errors, cases)


def _values(params: Params, name: str) -> list[str]:
    if not params:
        return []
    if hasattr(params, "getlist"):
        return [v for v in params.getlist(name) if v]
    value = params.get(name) if isinstance(params, Mapping) else None
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, list | tuple) else [str(value)]
