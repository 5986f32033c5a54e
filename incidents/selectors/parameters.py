"""The parameters the library's filters understand, and the one policy for those they do not.

The policy, the same on every face:

- An unknown filter value (a facet slug, a kind, a year that is not a year, an ordering) is named,
  with the closest values the library knows; the valid filters still apply.
- A page a person reads (`/`, `/cost/`, `/graph/`) answers 200: the message above the results,
  and the rest of the page with the valid filters.
- A face a program reads (the API under `/api/`, its exports, `/graph/data.json`, the Atom feed)
  answers 400 with a JSON body `{"<parameter>": ["<message>", ...]}` and nothing else, so a script
  never mistakes a partly applied filter for the set it asked for. The API also refuses a
  parameter it does not know (a misspelt `organization=` would otherwise return every case).

Pure functions over what the FilterSet and the vocabulary already hold: no queries.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

from rapidfuzz import fuzz
from rapidfuzz import process

from incidents.facets import BY_PARAM
from incidents.facets import FACETS
from incidents.filter_input import is_phrased
from incidents.filter_input import quoted
from incidents.filtersets import ORDERINGS
from incidents.filtersets import YEARS
from incidents.filtersets import CaseFilterSet
from incidents.models import CaseKind
from incidents.models import Setting
from incidents.selectors.vocabulary import Vocabulary

# Every query parameter of the one FilterSet (q, facets and their not_, kind, setting, years,
# ordering), in the FilterSet's order.
FILTER_PARAMS: tuple[str, ...] = tuple(CaseFilterSet.base_filters)
_YEAR_PARAMS = frozenset({"year", "year_min", "year_max"})
# Closest known values named in a message, at most.
CLOSEST = 3

Problems = dict[str, list[str]]


def closest(word: str, choices: Iterable[str], limit: int = CLOSEST) -> list[str]:
    """The known values nearest to `word` (rapidfuzz's weighted ratio), best first."""
    found = process.extract(word, list(choices), scorer=fuzz.WRatio, limit=limit)
    return [choice for choice, _score, _index in found]


def _field_choices(name: str) -> list[str] | None:
    return {
        "kind": list(CaseKind.values),
        "setting": list(Setting.values),
        "ordering": list(ORDERINGS),
    }.get(name)


def _values(params: Any, name: str) -> list[str]:
    if hasattr(params, "getlist"):
        return [str(v) for v in params.getlist(name)]
    value = params.get(name) if isinstance(params, Mapping) else None
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]


def _empty(name: str, label: str, known: list[str]) -> str:
    return (
        f"An empty {label} was given (parameter {name}); give one of the known values,"
        f" such as {quoted(known[:CLOSEST])}."
    )


def _year_problem(name: str, value: str) -> str:
    return (
        f"“{value}” is not a year (parameter {name}): give a whole year from {YEARS[0]}"
        f" to {YEARS[1]}."
    )


def filter_problems(
    params: Any, errors: Mapping[str, list[str]], vocabulary: Vocabulary
) -> Problems:
    """A message per value the filters had to leave out, naming it and the closest known values.

    `errors` are the FilterSet's (CaseQuery.errors); facet values are checked against the
    vocabulary, so every unknown slug gets its own message even when several were given. The
    FilterSet's own sentences (a repeated single value, a year range: `filter_input.phrased`)
    are passed on as they are.
    """
    problems: Problems = {}
    for spec in FACETS:
        slugs = vocabulary.slugs(spec.facet)
        for name in spec.params:
            for slug in _values(params, name):
                if not slug:
                    problems.setdefault(name, []).append(_empty(name, spec.label.lower(), slugs))
                elif vocabulary.get(spec.facet, slug) is None:
                    problems.setdefault(name, []).append(
                        f"There is no {spec.label.lower()} “{slug}” in the library"
                        f" (parameter {name}); closest known: {quoted(closest(slug, slugs))}."
                    )
    for name, found in errors.items():
        own = [message for message in found if is_phrased(name, message)]
        if own:
            problems.setdefault(name, []).extend(own)
        if len(own) < len(found) and name not in BY_PARAM:  # a facet's are named above
            rest = [message for message in found if message not in own]
            problems.setdefault(name, []).extend(_value_problems(params, name, rest))
    return problems


def _value_problems(params: Any, name: str, errors: list[str]) -> list[str]:
    """The messages of a case-field filter's values (kind, setting, years, ordering, q)."""
    values = _values(params, name)
    if name in _YEAR_PARAMS:
        return [_year_problem(name, value) for value in values[:1]]
    choices = _field_choices(name)
    if choices is None:
        return [f"The {name} parameter was not used: {' '.join(errors)}"]
    return [
        _empty(name, name, choices)
        if not value
        else f"“{value}” is not a known {name} (parameter {name});"
        f" closest known: {quoted(closest(value, choices))}."
        for value in values
        if value not in choices and (value or name != "ordering")
    ]


def unknown_parameters(params: Any, known: Iterable[str]) -> Problems:
    """A message per parameter that is not one of `known`, naming the closest known ones."""
    allowed = list(known)
    return {
        name: [
            f"Unknown parameter “{name}”; closest known: {quoted(closest(name, allowed))}."
            f" Known parameters: {', '.join(allowed)}."
        ]
        for name in params
        if name not in allowed
    }


def messages(problems: Problems) -> list[str]:
    """Every message, in parameter order, for a page to show."""
    return [message for found in problems.values() for message in found]
