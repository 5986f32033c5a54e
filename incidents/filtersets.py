"""The one definition of the library's filters, used by pages, the API, the graph and exports.

Query parameters: `root_cause`, `component`, `symptom`, `contributing_factor`, `organisation`
(facet value slugs, repeatable: OR within a facet, AND across facets; a parent value matches its
descendants), `not_<facet>` (exclude cases with that value or a descendant), and `q` (text).
"""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from incidents import search
from incidents.models import Case, CaseFacetLink
from incidents.selectors.vocabulary import FACETS, Vocabulary


@extend_schema_field(OpenApiTypes.STR)
class FacetValueFilter(django_filters.MultipleChoiceFilter):
    """Filter by facet value slugs; the choices are the facet's values in the vocabulary."""

    def __init__(self, *args: Any, facet: str, exclude_values: bool = False, **kwargs: Any) -> None:
        self.facet = facet
        self.exclude_values = exclude_values
        kwargs.setdefault("distinct", False)
        super().__init__(*args, **kwargs)

    def filter(self, qs: QuerySet[Case], value: list[str]) -> QuerySet[Case]:
        if not value:
            return qs
        # Links include implied ancestors, so a parent slug matches its descendants' cases.
        matching = CaseFacetLink.objects.filter(
            value__facet=self.facet, value__slug__in=value
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
        **kwargs: Any,
    ) -> None:
        super().__init__(data, queryset, **kwargs)
        self.vocabulary = vocabulary or Vocabulary.load()
        for facet, param, _label in FACETS:
            choices = [(slug, slug) for slug in self.vocabulary.slugs(facet)]
            for name in (param, f"not_{param}"):
                field = self.form.fields[name]
                assert isinstance(field, forms.MultipleChoiceField)
                field.choices = choices

    @classmethod
    def get_filters(cls) -> dict[str, django_filters.Filter]:  # type: ignore[override]
        filters = super().get_filters()
        for facet, param, label in FACETS:
            filters[param] = FacetValueFilter(field_name=param, facet=facet, label=label)
            filters[f"not_{param}"] = FacetValueFilter(
                field_name=param, facet=facet, exclude_values=True, label=f"Not {label.lower()}"
            )
        return filters

    def filter_text(self, queryset: QuerySet[Case], name: str, value: str) -> QuerySet[Case]:
        return search.filter_cases(queryset, value)

    @property
    def cleaned_data(self) -> dict[str, Any]:
        """The valid filter values (invalid ones are left out and reported in `errors`)."""
        if not self.is_bound:
            return {}
        self.is_valid()
        return dict(getattr(self.form, "cleaned_data", {}))

    def filter_queryset_without(self, queryset: QuerySet[Case], skip: str) -> QuerySet[Case]:
        """Apply every valid filter except the one named `skip` (for "what if" facet counts)."""
        for name, value in self.cleaned_data.items():
            if name == skip:
                continue
            queryset = self.filters[name].filter(queryset, value)
        return queryset

    def active_values(self) -> list[tuple[str, bool, list[str]]]:
        """(query parameter, excluded?, slugs) for every facet filter in use and valid."""
        data = self.cleaned_data
        active = []
        for _facet, param, _label in FACETS:
            for name, excluded in ((param, False), (f"not_{param}", True)):
                if data.get(name):
                    active.append((param, excluded, list(data[name])))
        return active
