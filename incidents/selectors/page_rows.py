"""A page's cases by id on PostgreSQL, in SQL written once: each with `direct_value_ids`, the ids
of its own facet values (an array per case), for cases.attach_direct_values.

The ORM's queryset for this (`filter(id__in=ids).annotate(ArrayAgg(...))`) is compiled anew on
every request, and compiling it cost more than PostgreSQL's reading the 20 rows; this is the same
query (every concrete column of the case, the same join and aggregate), its SQL built once and its
ids one array parameter, the instances made with `Model.from_db` as the ORM makes them (no case
column has a converter on PostgreSQL: tests/test_facet_index.py compares the two readings).

`summaries` reads what the API's list rows show and nothing else, as tuples (api/case_rows.py
writes them out).
"""

from __future__ import annotations

from functools import cache

from django.db import connections

from incidents.models import Case
from incidents.models import CaseFacetLink


@cache
def _query() -> tuple[str, tuple[str, ...]]:
    case, link = Case._meta, CaseFacetLink._meta
    fields = case.concrete_fields
    columns = ", ".join(f'"{case.db_table}"."{f.column}"' for f in fields)
    value = link.get_field("value").column
    to_case = link.get_field("case").column
    sql = (
        f'SELECT {columns}, ARRAY_AGG("{link.db_table}"."{value}") '
        f'FILTER (WHERE "{link.db_table}"."direct") '
        f'FROM "{case.db_table}" LEFT OUTER JOIN "{link.db_table}" '
        f'ON ("{case.db_table}"."id" = "{link.db_table}"."{to_case}") '
        f'WHERE "{case.db_table}"."id" = ANY(%s) GROUP BY "{case.db_table}"."id"'
    )
    return sql, tuple(f.attname for f in fields)


def cases_by_id(using: str, ids: list[int]) -> dict[int, Case]:
    """The cases of `ids` (those that exist), by id, each with `direct_value_ids`."""
    sql, names = _query()
    width = len(names)
    with connections[using].cursor() as cursor:
        cursor.execute(sql, [list(ids)])
        rows = cursor.fetchall()
    found: dict[int, Case] = {}
    for row in rows:
        case = Case.from_db(using, names, row[:width])
        case.direct_value_ids = row[width]  # type: ignore[attr-defined]
        found[case.id] = case
    return found


# What a row of the API's case list shows, in this order (page_rows.summaries' tuples), then the
# ids of the case's own facet values.
_PERIOD = ("period_start", "period_start_precision", "period_end", "period_end_precision")
SUMMARY_FIELDS = (
    "id",
    "slug",
    "title",
    "kind",
    "setting",
    *_PERIOD,
    "published",
    "published_precision",
)


@cache
def _summary_query() -> str:
    case, link = Case._meta, CaseFacetLink._meta
    by_name = {f.attname: f for f in case.concrete_fields}
    columns = ", ".join(f'"{case.db_table}"."{by_name[n].column}"' for n in SUMMARY_FIELDS)
    value = link.get_field("value").column
    to_case = link.get_field("case").column
    # A subquery per case rather than a join and GROUP BY: PostgreSQL plans and runs it in
    # half the time (0.3 ms against 0.8 for 20 cases of 100,000).
    return (
        f'SELECT {columns}, ARRAY(SELECT "{value}" FROM "{link.db_table}" '
        f'WHERE "{to_case}" = "{case.db_table}"."id" AND "direct") '
        f'FROM "{case.db_table}" WHERE "{case.db_table}"."id" = ANY(\'{{{{{{}}}}}}\'::bigint[])'
    )


def summaries(using: str, ids: list[int]) -> dict[int, tuple[object, ...]]:
    """The cases of `ids` (those that exist), by id, as tuples of SUMMARY_FIELDS' values and
    then the ids of the case's own facet values: no model instance, no column a row does not
    show."""
    # The ids written into the SQL (whole numbers from the index: nothing to quote), which
    # spares the driver adapting a list parameter.
    sql = _summary_query().format(",".join(map(str, map(int, ids))))
    with connections[using].cursor() as cursor:
        cursor.execute(sql)
        return {row[0]: row for row in cursor.fetchall()}
