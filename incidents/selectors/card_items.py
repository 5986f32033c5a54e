"""A case card's links to shared items (remediations, action items, lessons) in one query.

The card shows the three kinds; as three prefetches they were three queries, each compiled by
the ORM on every request. The link tables have the same columns (`CaseItemLink`) and so have the
item tables (`SharedItem`), so one UNION ALL reads them all, its SQL written once. The instances
are made with `Model.from_db`, as the ORM makes them, and stored where the prefetches store them
(the case's `_prefetched_objects_cache`, a queryset holding its rows): `prefetched(case,
"lesson_links")` and `case.lesson_links.all()` read them without a query, and a case that was
not given them still raises `MissingPrefetch`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from django.db.models import Model

from incidents.models import CASE_ITEM_LINKS
from incidents.models import Case
from incidents.models import case_relation
from incidents.models import item_model
from incidents.models.library import ItemLinkModel


@dataclass(frozen=True)
class _Query:
    sql: str
    links: tuple[ItemLinkModel, ...]  # by the kind number each row starts with
    link_names: tuple[str, ...]  # the attnames of a link's columns, in the row's order
    item_names: tuple[str, ...]  # the same for its item


def _columns(model: type[Model]) -> tuple[list[str], tuple[str, ...]]:
    table = model._meta.db_table
    fields = model._meta.concrete_fields
    return [f'"{table}"."{f.column}"' for f in fields], tuple(f.attname for f in fields)


@cache
def _query() -> _Query:
    parts: list[str] = []
    names: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    links = tuple(CASE_ITEM_LINKS.values())
    for kind, link in enumerate(links):
        item = item_model(link)
        link_columns, link_names = _columns(link)
        item_columns, item_names = _columns(item)
        if names is None:
            names = (link_names, item_names)
        elif names != (link_names, item_names):  # a UNION needs the same columns in each part
            raise ImproperlyConfigured(f"{link.__name__} has columns of its own: read it apart")
        table = link._meta.db_table
        to_item = link._meta.get_field("item").column
        to_case = link._meta.get_field("case").column
        parts.append(
            f'SELECT {kind}, {", ".join(link_columns + item_columns)} FROM "{table}" '
            f'INNER JOIN "{item._meta.db_table}" ON ("{table}"."{to_item}" = '
            f'"{item._meta.db_table}"."{item._meta.pk.column}") WHERE "{table}"."{to_case}" = %s'
        )
    assert names is not None
    # Kind, then the case's order (position; the id settles a tie): columns numbered from 1.
    order = f"1, {2 + names[0].index('position')}, {2 + names[0].index('id')}"
    return _Query(" UNION ALL ".join(parts) + f" ORDER BY {order}", links, *names)


def attach_items(case: Case) -> None:
    """Read the case's links to shared items, with their items, in one query and store them as
    its prefetched `remediation_links`, `action_item_links` and `lesson_links`."""
    query = _query()
    using = case._state.db or "default"
    with connections[using].cursor() as cursor:
        cursor.execute(query.sql, [case.id] * len(query.links))
        rows = cursor.fetchall()
    width = len(query.link_names)
    found: list[list[Model]] = [[] for _ in query.links]
    for row in rows:
        model = query.links[row[0]]
        link = model.from_db(using, query.link_names, row[1 : 1 + width])
        item = item_model(model).from_db(using, query.item_names, row[1 + width :])
        model._meta.get_field("item").set_cached_value(link, item)  # type: ignore[union-attr]
        model._meta.get_field("case").set_cached_value(link, case)  # type: ignore[union-attr]
        found[row[0]].append(link)
    stored = case.__dict__.setdefault("_prefetched_objects_cache", {})
    for model, links in zip(query.links, found, strict=True):
        relation = case_relation(model)
        rows_of = getattr(case, relation).all()  # the queryset a prefetch would store, unread
        rows_of._result_cache = links
        rows_of._prefetch_done = True
        stored[relation] = rows_of
