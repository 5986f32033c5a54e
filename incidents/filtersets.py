"""The one definition of the library's filters, used by pages, the API, the graph and exports.

Query parameters: for every facet of the registry (incidents.facets), `<param>` (facet value
slugs, repeatable: OR within a facet, AND across facets; a parent value matches its descendants)
and `not_<param>` (exclude cases with that value or a descendant); and `q` (text, ranked by
incidents.search, planned once and shared by the copies `without` makes).
Unknown values are left out and reported in `errors`; the valid filters still apply.
Repeated values are read once and each parameter, and the search text, is bounded
(incidents.query_params); what that leaves out is said in `notes`.

Apply it through `incidents.selectors.cases.case_queryset`, never by hand.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet

from incidents.facets import FACETS, FacetSpec
from incidents.models import Case, CaseFacetLink
from incidents.query_params import bound_params
from incidents.search import TextSearch
from incidents.selectors.vocabulary import Vocabulary


class FacetValueFilter(django_filters.MultipleChoiceFilter):
    """Filter by facet value slugs; the choices are the facet's values in the vocabulary."""

    def __init__(
        self, *args: Any, spec: FacetSpec, exclude_values: bool = False, **kwargs: Any
    ) -> None:
        self.spec = spec
        self.exclude_values = exclude_values
        kwargs.setdefault("distinct", False)
        super().__init__(*args, **kwargs)

    def filter(self, qs: QuerySet[Case], value: list[str]) -> QuerySet[Case]:
        if not value:
            return qs
        # Links include implied ancestors, so a parent slug matches its descendants' cases.
        matching = CaseFacetLink.objects.filter(
            value__facet=self.spec.facet, value__slug__in=value
        ).values("case_id")
        if self.exclude_values:
            return qs.exclude(id__in=matching)
        return qs.filter(id__in=matching)


class CaseFilterSet(django_filters.FilterSet):
    """Facet and text filters over cases."""

    q = django_filters.CharFilter(method="filter_text", label="Search")

    class Meta:
        model = Case
        fields: list[str] = []

    def __init__(
        self,
        data: Any = None,
        queryset: QuerySet[Case] | None = None,
        *,
        vocabulary: Vocabulary | None = None,
        text_search: TextSearch | None = None,
        **kwargs: Any,
    ) -> None:
        self.notes: list[str] = []
        if data is not None:
            bounded = bound_params(data)
            data, self.notes = bounded.data, bounded.notes
        super().__init__(data, queryset, **kwargs)
        self.vocabulary = vocabulary or Vocabulary.load()
        self._text_search = text_search
        for spec in FACETS:
            choices = [(slug, slug) for slug in self.vocabulary.slugs(spec.facet)]
            for name in spec.params:
                field = self.form.fields[name]
                assert isinstance(field, forms.MultipleChoiceField)
                field.choices = choices

    @classmethod
    def get_filters(cls) -> dict[str, django_filters.Filter]:  # type: ignore[override]
        filters = super().get_filters()
        for spec in FACETS:
            filters[spec.param] = FacetValueFilter(
                field_name=spec.param, spec=spec, label=spec.plural
            )
            filters[spec.exclude_param] = FacetValueFilter(
                field_name=spec.param,
                spec=spec,
                exclude_values=True,
                label=f"Not {spec.plural.lower()}",
            )
        return filters

    def filter_text(self, queryset: QuerySet[Case], name: str, value: str) -> QuerySet[Case]:
        return self.text_search_for(value).apply(queryset)

    def text_search_for(self, text: str) -> TextSearch:
        """The planned search for `text` (planned once, then reused)."""
        if self._text_search is None or self._text_search.text != text:
            self._text_search = TextSearch(text, values=self.vocabulary.values.values())
        return self._text_search

    @property
    def text_search(self) -> TextSearch | None:
        """The search the valid `q` asks for, or None without words."""
        text = str(self.cleaned_data.get("q") or "")
        return self.text_search_for(text) if text.strip() else None

    @property
    def cleaned_data(self) -> dict[str, Any]:
        """The valid filter values (invalid ones are left out and reported in `errors`)."""
        if not self.is_bound:
            return {}
        self.is_valid()
        return dict(getattr(self.form, "cleaned_data", {}))

    def without(self, *names: str) -> CaseFilterSet:
        """The same filters but the named ones, over the same cases and vocabulary.

        Its `.qs` gives the "what if" base of a facet: `without("symptom")` keeps every other
        filter (and the symptom exclusions), so counting symptoms on it says what one more
        symptom would give.
        """
        if not self.is_bound:
            return self
        data = self.data.copy()
        for name in names:
            data.pop(name, None)
        narrower = type(self)(
            data,
            queryset=self.queryset,
            vocabulary=self.vocabulary,
            text_search=self._text_search,
        )
        narrower.notes = self.notes
        return narrower

    def selected(self) -> tuple[tuple[str, str], ...]:
        """(query parameter, slug) of every valid facet filter in use, in the registry's order."""
        data = self.cleaned_data
        return tuple(
            (name, slug) for spec in FACETS for name in spec.params for slug in data.get(name, ())
        )
