"""The one definition of the library's filters, used by pages, the API, the graph and exports.

Query parameters: for every facet of the registry (incidents.facets), `<param>` (facet value
slugs, repeatable: OR within a facet, AND across facets; a parent value matches its descendants)
and `not_<param>` (exclude cases with that value or a descendant); `q` (text, ranked by
incidents.search, planned once and shared by the copies `without` makes); `kind` and `setting`
(repeatable, OR); `year`, `year_min`, `year_max` (the year of the case's date: the start
of its period, or its publication where the source gives no period; bounds inclusive); and
`ordering` (one of ORDERINGS; the default is newest first, best match first with `q`).
Unknown values are left out one by one and reported in `errors` (`symptom=nccl-timeout&symptom=
nope` still filters by nccl-timeout); the valid filters still apply. A parameter that takes one
value given several different ones keeps its first, and `year_min` after `year_max` leaves both
out; both are reported in `errors` too, in sentences naming the parameter (`filter_input.phrased`). Repeated
values are read once and each parameter, and the search text, is bounded (incidents.query_params);
what that leaves out is said in `notes`.

Apply it through `incidents.selectors.cases.case_queryset`, never by hand.
"""

from __future__ import annotations

import copy
from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet
from django.db.models.functions import Coalesce
from django.db.models.functions import ExtractYear
from django.db.models.functions import Lower

from incidents.facets import BY_PARAM
from incidents.facets import FACETS
from incidents.facets import FacetSpec
from incidents.filter_input import CaseFilterForm
from incidents.filter_input import YearFilter
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import CaseKind
from incidents.models import Setting
from incidents.query_params import bound_params
from incidents.query_params import repeated_problem
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


# The earliest and latest year a year filter accepts (outside it, a typo rather than a year).
YEARS = (1950, 2100)


# `ordering=` values: what each sorts by (ties: newest first, then title).
_DATE = Coalesce("period_start", "published")
ORDERINGS: dict[str, tuple[str, list[Any]]] = {
    "newest": ("Newest first", [_DATE.desc(nulls_last=True), "title"]),
    "oldest": ("Oldest first", [_DATE.asc(nulls_last=True), "title"]),
    # Titles as a reader sorts them, whatever their case (SQLite's default collation is binary).
    "title": ("Title, A to Z", [Lower("title"), _DATE.desc(nulls_last=True)]),
    "-title": ("Title, Z to A", [Lower("title").desc(), _DATE.desc(nulls_last=True)]),
}
# The case-field filters (not facets), in the order chips and links show them, with labels.
FIELD_FILTERS: dict[str, str] = {
    "kind": "Kind",
    "setting": "Setting",
    "year": "Year",
    "year_min": "From year",
    "year_max": "To year",
    "ordering": "Order",
}


def field_value_label(name: str, value: str) -> str:
    """How a chip names a case-field filter's value: "Near miss", "2023"."""
    labels = {"kind": dict(CaseKind.choices), "setting": dict(Setting.choices)}.get(name, {})
    if name == "ordering":
        return ORDERINGS[value][0] if value in ORDERINGS else value
    return str(labels.get(value, value))


class _CopiedFilterByFilter(dict[str, django_filters.Filter]):
    """A FilterSet's `base_filters`, which django-filter deep-copies for every FilterSet (every
    request, and every `without`): here each filter is copied on its own, sharing its
    definition (choices, labels, widgets), which no FilterSet changes, instead of copying all
    of it again. A filter with a `method` is bound to its copy, as a deep copy binds it."""

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, django_filters.Filter]:
        copies = {}
        for name, original in self.items():
            filter_ = copy.copy(original)
            method = getattr(original, "_method", None)
            if method is not None:
                filter_.method = method  # a FilterMethod of the copy, not of the original
            copies[name] = filter_
        return copies


class _FieldsCopiedSharingChoices(dict[str, forms.Field]):
    """The filter form's `base_fields`, which Django deep-copies for every form: each field copied
    as `Field.__deepcopy__` copies it (its widget, error messages and validators), but sharing a
    choice field's choices, which a deep copy would copy value by value (the facets' hundreds,
    most of a form's cost). No form changes a choice list in place: CaseFilterSet gives a field
    its facet's choices by assigning new ones."""

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, forms.Field]:
        copies = {}
        for name, original in self.items():
            field = copy.copy(original)
            memo[id(original)] = field
            field.widget = copy.deepcopy(original.widget, memo)
            field.error_messages = original.error_messages.copy()
            field.validators = original.validators[:]
            copies[name] = field
        return copies


class CaseFilterSet(django_filters.FilterSet):
    """Facet, text and case-field filters over cases, and their order."""

    q = django_filters.CharFilter(method="filter_text", label="Search")
    kind = django_filters.MultipleChoiceFilter(choices=CaseKind.choices, label="Kind")
    setting = django_filters.MultipleChoiceFilter(choices=Setting.choices, label="Setting")
    year = YearFilter(method="filter_year", label="Year", min_value=YEARS[0], max_value=YEARS[1])
    year_min = YearFilter(
        method="filter_year", label="From year", min_value=YEARS[0], max_value=YEARS[1]
    )
    year_max = YearFilter(
        method="filter_year", label="To year", min_value=YEARS[0], max_value=YEARS[1]
    )
    ordering = django_filters.ChoiceFilter(
        method="filter_ordering",
        label="Order",
        choices=[(key, label) for key, (label, _) in ORDERINGS.items()],
    )

    class Meta:
        model = Case
        fields: list[str] = []
        form = CaseFilterForm

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
        self.repeated: dict[str, list[str]] = {}
        if data is not None:
            bounded = bound_params(data, single=SINGLE_VALUED)
            data, self.notes, self.repeated = bounded.data, bounded.notes, bounded.repeated
        super().__init__(data, queryset, **kwargs)
        self.vocabulary = vocabulary or Vocabulary.load()
        self._text_search = text_search
        # Values of a repeatable filter that it does not know (a slug not in the library, an
        # empty value), left out one by one: the form sees the known ones only.
        self.left_out: dict[str, list[str]] = {}
        self._form_data = self.data
        if self.is_bound:
            self._form_data = self._known_values_only()
        # The facets' choices, on the fields given a value (validating no value needs none).
        given = set(self._form_data) if self.is_bound else set()
        for spec in FACETS:
            for name in spec.params:
                if name in given:
                    field = self.form.fields[name]
                    assert isinstance(field, forms.MultipleChoiceField)
                    field.choices = self.vocabulary.slug_choices(spec.facet)

    def _known_values_only(self) -> Any:
        """The data with the unknown values of repeatable filters left out (noted in
        `left_out`); the data itself when every value is known."""
        kept = None
        for name in self.data:
            spec = BY_PARAM.get(name)
            choices = _FIELD_CHOICES.get(name)
            if spec is None and choices is None:
                continue
            values = self.data.getlist(name)
            unknown = [
                v
                for v in values
                if (v not in choices if choices is not None else not self._in_library(spec, v))
            ]
            if unknown:
                self.left_out[name] = unknown
                kept = kept or self.data.copy()
                kept.setlist(name, [v for v in values if v not in unknown])
        return self.data if kept is None else kept

    def _in_library(self, spec: FacetSpec | None, slug: str) -> bool:
        return spec is not None and self.vocabulary.get(spec.facet, slug) is not None

    @property
    def form(self) -> forms.Form:
        """The filters' form, bound to the known values only (`_known_values_only`)."""
        if not hasattr(self, "_form"):
            form_class = self.get_form_class()
            if self.is_bound:
                self._form = form_class(self._form_data, prefix=self.form_prefix)
            else:
                self._form = form_class(prefix=self.form_prefix)
        return self._form

    @property
    def errors(self) -> dict[str, list[str]]:  # type: ignore[override]
        """The form's errors, each value left out (`left_out`: an "unknown value" error) and
        each single-valued parameter given several values."""
        errors = {name: [str(m) for m in found] for name, found in self.form.errors.items()}
        for name, values in self.left_out.items():
            errors.setdefault(name, []).extend(f"Unknown value “{v}”." for v in values)
        for name, values in self.repeated.items():
            errors.setdefault(name, []).append(repeated_problem(name, values))
        return errors

    def get_form_class(self) -> type[forms.Form]:
        """The form of the filters, made once per class rather than once per FilterSet: its
        fields are the same for every FilterSet (each form copies them; the facets' choices are
        then set on the copies)."""
        cls = type(self)
        made: type[forms.Form] | None = cls.__dict__.get("_form_class")
        if made is None:
            made = super().get_form_class()
            made.base_fields = _FieldsCopiedSharingChoices(made.base_fields)
            cls._form_class = made  # type: ignore[attr-defined]
        return made

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

    def filter_year(self, queryset: QuerySet[Case], name: str, value: Any) -> QuerySet[Case]:
        if value is None:
            return queryset
        lookup = {"year": "case_year", "year_min": "case_year__gte", "year_max": "case_year__lte"}
        return queryset.alias(case_year=ExtractYear(_DATE)).filter(**{lookup[name]: int(value)})

    def filter_ordering(self, queryset: QuerySet[Case], name: str, value: str) -> QuerySet[Case]:
        return queryset  # applied last, in filter_queryset, over the text search's ranking

    def filter_queryset(self, queryset: QuerySet[Case]) -> QuerySet[Case]:
        filtered = super().filter_queryset(queryset)
        ordering = self.form.cleaned_data.get("ordering")
        if ordering:
            filtered = filtered.order_by(*ORDERINGS[ordering][1])
        return filtered

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
        symptom would give. A FilterSet using none of the named filters is its own copy (its
        `.qs` built once, not once per facet it is counted for).
        """
        if not self.is_bound or not any(name in self.data for name in names):
            return self
        data = self.data.copy()
        for name in names:
            data.pop(name, None)
        narrower = type(self)(
            data,
            queryset=self.queryset,
            vocabulary=self.vocabulary,
            # Planned now if not yet: this FilterSet and its copies search with one plan.
            text_search=self.text_search or self._text_search,
        )
        narrower.notes = self.notes
        return narrower

    def selected(self) -> tuple[tuple[str, str], ...]:
        """(query parameter, value) of every valid facet filter in use, in the registry's order,
        then of the case-field filters (kind, setting, years, ordering)."""
        data = self.cleaned_data
        facet_pairs = [
            (name, slug) for spec in FACETS for name in spec.params for slug in data.get(name, ())
        ]
        field_pairs: list[tuple[str, str]] = []
        for name in FIELD_FILTERS:
            value = data.get(name)
            values = value if isinstance(value, list) else [] if value in (None, "") else [value]
            field_pairs.extend(
                (name, str(int(v)) if name.startswith("year") else v) for v in values
            )
        return (*facet_pairs, *field_pairs)


CaseFilterSet.base_filters = _CopiedFilterByFilter(CaseFilterSet.base_filters)
# The filters that take one value (the text, the years, the order); the others are repeatable.
SINGLE_VALUED: frozenset[str] = frozenset(
    name
    for name, filter_ in CaseFilterSet.base_filters.items()
    if not isinstance(filter_, django_filters.MultipleChoiceFilter)
)
# The repeatable case-field filters' values (the facets' are the vocabulary's slugs).
_FIELD_CHOICES: dict[str, frozenset[str]] = {
    "kind": frozenset(CaseKind.values),
    "setting": frozenset(Setting.values),
}
