"""The API list's rows written straight from page_rows.summaries' tuples: field for field what
CaseSummarySerializer writes for the same case (tests/test_api.py compares them), with no model
instance, no DRF field and no per-row lookup beyond dictionaries built once per vocabulary.
"""

from __future__ import annotations

import functools
from operator import itemgetter
from types import SimpleNamespace
from typing import Any
from typing import cast

from incidents.facets import FACETS
from incidents.models import Case
from incidents.models import case_period_label
from incidents.selectors.page_rows import SUMMARY_FIELDS
from incidents.selectors.vocabulary import Vocabulary

_PARAMS = tuple(spec.param for spec in FACETS)
_PLACE = {spec.facet: place for place, spec in enumerate(FACETS)}
# The row's tuple: SUMMARY_FIELDS, then the case's own value ids (unpacked by name below).
assert len(SUMMARY_FIELDS) == 11 and len(FACETS) == 5, "summary_rows unpacks them by position"

# Per facet value id: its place in the vocabulary's order, its facet's place in FACETS and the
# {"slug", "name"} a row shows; for the one vocabulary it was made from (that of the version
# being served: a newer version brings a newer vocabulary, and this is made again).
_values: tuple[Vocabulary, dict[int, tuple[int, int, dict[str, str]]]] | None = None


def _value_table(vocabulary: Vocabulary) -> dict[int, tuple[int, int, dict[str, str]]]:
    global _values
    known = _values
    if known is not None and known[0] is vocabulary:
        return known[1]
    position = vocabulary.position
    table = {
        value.id: (
            position[value.id],
            _PLACE[value.facet],
            {"slug": value.slug, "name": value.name},
        )
        for value in vocabulary.values.values()
        if value.facet in _PLACE
    }
    _values = (vocabulary, table)
    return table


@functools.lru_cache(maxsize=4096)
def _period_label(*points: Any) -> str:
    """case_period_label of a case with these dates and precisions (the same few on a page)."""
    names = SUMMARY_FIELDS[5:]
    return case_period_label(cast(Case, SimpleNamespace(**dict(zip(names, points, strict=True)))))


def summary_rows(
    rows: list[tuple[Any, ...]], vocabulary: Vocabulary, url: str, api_url: str, slug: str
) -> list[dict[str, Any]]:
    """The list's rows of page_rows.summaries' tuples; `url` and `api_url` are the page's and
    the API's link to a case with `slug` standing for its slug; the dates are written as DRF's
    DateField writes them (ISO 8601). A facet value newer than the vocabulary is left out, as
    cases.attach_direct_values does."""
    table = _value_table(vocabulary)
    found = table.get
    first = itemgetter(0)
    out = []
    for row in rows:
        (
            _id,
            case_slug,
            title,
            kind,
            setting,
            start,
            start_precision,
            end,
            end_precision,
            published,
            published_precision,
            value_ids,
        ) = row
        facets: list[list[dict[str, str]]] = [[], [], [], [], []]
        if value_ids:
            values = [v for v in map(found, value_ids) if v is not None]
            values.sort(key=first)
            for _, place, item in values:
                facets[place].append(item)
        out.append(
            {
                "slug": case_slug,
                "title": title,
                "kind": kind,
                "setting": setting,
                "period": {
                    "start": None if start is None else start.isoformat(),
                    "start_precision": start_precision,
                    "end": None if end is None else end.isoformat(),
                    "end_precision": end_precision,
                    "label": _period_label(
                        start, start_precision, end, end_precision, published, published_precision
                    ),
                    "published": None if published is None else published.isoformat(),
                    "published_precision": published_precision,
                },
                "facets": dict(zip(_PARAMS, facets, strict=True)),
                "url": url.replace(slug, case_slug),
                "api_url": api_url.replace(slug, case_slug),
            }
        )
    return out
