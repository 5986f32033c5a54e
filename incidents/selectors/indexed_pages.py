"""Pages of a FilterSet's cases whose count, and in the default order whose ids, the facet index
gives (`facet_index.Selection`): no COUNT(*), and no sort of every match for a page."""

from __future__ import annotations

from django.contrib.postgres.aggregates import ArrayAgg
from django.core.paginator import Page
from django.core.paginator import Paginator
from django.db import connections
from django.db.models import Q
from django.db.models import QuerySet
from django.db.models import prefetch_related_objects
from django.utils.functional import cached_property

from incidents.filtersets import CaseFilterSet
from incidents.models import Case
from incidents.selectors import page_rows
from incidents.selectors.facet_index import Selection
from incidents.selectors.facet_index import selection


class IndexedPaginator(Paginator[Case]):
    """A Paginator whose count comes from the index (no COUNT(*)) and, in the default order, whose
    pages too: the page's ids are a slice of the selected ranks, and only those cases are read
    (`WHERE id IN (...)`, with the queryset's prefetches), instead of sorting every match. Near
    the top of a text search, the page's ids are the search's first ones (TextSearch.top_ids),
    ranked over the cases that can be there rather than over every match.

    The cases are the Selection's FilterSet's: `object_list` only gives the database and the
    prefetches (the FilterSet's base queryset will do), so that the filtered queryset, and its
    subqueries, is built only for a page sorted by the database (`ordering`, a later page of a
    text search)."""

    def __init__(self, object_list: QuerySet[Case], per_page: int, *, found: Selection) -> None:
        super().__init__(object_list, per_page)
        self._found = found

    @cached_property
    def count(self) -> int:
        return len(self._found.selected())

    def page(self, number: int | str) -> Page[Case]:
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        object_list: QuerySet[Case] = self.object_list  # type: ignore[assignment]
        lookups = getattr(object_list, "_prefetch_related_lookups", ())  # no public accessor
        if not self._found.in_default_order:
            ranked = self._found.ranked_page(bottom, top)
            if ranked is None:
                # Sorted by the database: the FilterSet's filtered cases, built only now.
                self.object_list = self._found.filterset.qs.prefetch_related(*lookups)
                return super().page(number)
            prefetch_related_objects(ranked, *lookups)
            return Page(ranked, number, self)
        ids = self._found.page_ids(bottom, top)
        # By id alone, with the list's prefetches: the ids already satisfy its filters, whose
        # subqueries (a NOT over every link) would cost more than the page.
        postgresql = connections[object_list.db].vendor == "postgresql"
        if postgresql and not lookups:  # the same query, its SQL written once (page_rows)
            found = page_rows.cases_by_id(object_list.db, ids)
            return Page([found[i] for i in ids if i in found], number, self)
        rows = Case.objects.using(object_list.db).filter(id__in=ids).order_by()
        rows = rows.prefetch_related(*lookups)
        if postgresql:
            # The ids of the cases' own facet values in the same query (an array per case), for
            # cases.attach_direct_values: one query for the page instead of two.
            rows = rows.annotate(
                direct_value_ids=ArrayAgg("links__value_id", filter=Q(links__direct=True))
            )
        by_id = {case.id: case for case in rows}
        return Page([by_id[i] for i in ids if i in by_id], number, self)


def paginator(filterset: CaseFilterSet, per_page: int) -> Paginator[Case]:
    """A paginator over the FilterSet's cases whose count (and, in the default order, pages)
    the index gives."""
    return IndexedPaginator(filterset.queryset, per_page, found=selection(filterset))
