"""The query state of a page: the one object that builds every filter URL and chip.

A `QueryState` holds what a page's address says: the search words `q`, the facet selections
(`symptom=...`, `not_symptom=...`, in order), the sentence that suggestions still come from
(`words`), the page's own options (the graph's
`min_cases`) and the page number. Every link the pages show is a changed copy rendered by
`href()`: chips, facet toggles, suggestions, pagination, and (through the `filter_url` template
tag) "the same cases on another page". It is built from the *valid* filters of a request, so an
unknown value is reported once and never carried along.

Links on the page itself are relative ("?symptom=nccl-timeout"); `on(view)` points a state at
another page ("/cost/?symptom=nccl-timeout").
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from incidents import facets
from incidents.filtersets import FIELD_FILTERS
from incidents.filtersets import CaseFilterSet
from incidents.filtersets import field_value_label
from incidents.models import FacetValue

# The sentence the remaining suggestions come from, once `q` was turned into filters.
WORDS_PARAM = "words"
ORDERING_PARAM = "ordering"


@dataclass(frozen=True)
class Chip:
    """An applied filter: what it is, and the link that removes it."""

    label: str  # "Search", or the facet's label
    text: str  # the words, or the value's name
    excluded: bool
    remove_url: str


@dataclass(frozen=True)
class QueryState:
    """What a page's query string says, and every link that changes it."""

    q: str = ""
    words: str = ""
    selected: tuple[tuple[str, str], ...] = ()  # (parameter, slug), in the order given
    options: tuple[tuple[str, str], ...] = ()  # the page's own parameters, kept in its links
    page: int = 1
    path: str = ""  # where the links go; "" for the page itself (relative links)

    @classmethod
    def of(
        cls,
        filterset: CaseFilterSet,
        params: Mapping[str, Any],
        *,
        page: int = 1,
        options: Iterable[tuple[str, str]] = (),
    ) -> QueryState:
        """The state made of a request's valid filters (and its sentence, when `q` is empty)."""
        q = str(filterset.cleaned_data.get("q") or "")
        words = "" if q else str(params.get(WORDS_PARAM) or "").strip()
        return cls(
            q=q, words=words, selected=filterset.selected(), options=tuple(options), page=page
        )

    # --- rendering ---------------------------------------------------------------------------

    def pairs(self) -> list[tuple[str, str]]:
        """The query parameters, in the order the address shows them."""
        pairs: list[tuple[str, str]] = []
        if self.q:
            pairs.append(("q", self.q))
        pairs.extend(self.selected)
        if self.words:
            pairs.append((WORDS_PARAM, self.words))
        pairs.extend(self.options)
        if self.page > 1:
            pairs.append(("page", str(self.page)))
        return pairs

    def href(self) -> str:
        """The link: "?a=b" on the page itself ("?" when empty), "/path/?a=b" elsewhere."""
        encoded = urlencode(self.pairs())
        if encoded:
            return f"{self.path}?{encoded}"
        return self.path or "?"

    def toggled_href(self, param: str, slug: str) -> str:
        """`toggled(param, slug).href()`; a facet tree asks it of every value, so when the value
        is not in use (the link adds it) the address is made without building the copy."""
        if self._uses(param, slug):
            return self.toggled(param, slug).href()
        return self._href_adding(param, slug)

    def toggled_exclusion_href(self, param: str, slug: str) -> str:
        """`toggled_exclusion(param, slug).href()`, as cheaply as `toggled_href`."""
        if self._uses(param, slug):
            return self.toggled_exclusion(param, slug).href()
        return self._href_adding(facets.BY_PARAM[param].exclude_param, slug)

    def _uses(self, param: str, slug: str) -> bool:
        return (facets.BY_PARAM[param].facet, slug) in self._in_use

    @functools.cached_property
    def _in_use(self) -> frozenset[tuple[str, str]]:
        """(facet, slug) of every selected value, included or excluded."""
        return frozenset(
            (spec.facet, slug)
            for name, slug in self.selected
            if (spec := facets.spec_of_param(name)) is not None
        )

    @functools.cached_property
    def _encoded_around_selection(self) -> tuple[str, str]:
        """The encoded parameters before an added selection (text, selections) and after it
        (sentence, options); the page is left out, as a changed selection starts on page 1."""
        head = ([("q", self.q)] if self.q else []) + list(self.selected)
        tail = ([(WORDS_PARAM, self.words)] if self.words else []) + list(self.options)
        return urlencode(head), urlencode(tail)

    def _href_adding(self, name: str, slug: str) -> str:
        head, tail = self._encoded_around_selection
        pair = _encoded_pair(name, slug)
        if head:
            pair = f"{head}&{pair}"
        if tail:
            pair = f"{pair}&{tail}"
        return f"{self.path}?{pair}"

    def filter_inputs(self) -> list[tuple[str, str]]:
        """Hidden form inputs that carry the filters (text and facets) with a form's own fields."""
        return [("q", self.q), *self.selected] if self.q else list(self.selected)

    # --- changed copies ------------------------------------------------------------------------

    def replace(self, **changes: Any) -> QueryState:
        """A copy with the changes; back on the first page unless a page is given."""
        changes.setdefault("page", 1)
        return dataclasses.replace(self, **changes)

    def on(self, view_name: str, *args: Any) -> QueryState:
        """The same cases on another page: the text and facet filters only."""
        return QueryState(q=self.q, selected=self.selected, path=reverse(view_name, args=args))

    def with_option(self, name: str, value: str, *, default: str = "") -> QueryState:
        """With a page option set (left out of the address when it is the default)."""
        kept = tuple(o for o in self.options if o[0] != name)
        added = ((name, value),) if value and value != default else ()
        return self.replace(options=kept + added)

    def has(self, name: str, slug: str) -> bool:
        return (name, slug) in self.selected

    def including(self, value: FacetValue) -> QueryState:
        """With cases of a value only (kept as it is if already included)."""
        name = facets.spec(value.facet).param
        if self.has(name, value.slug):
            return self
        return self.replace(selected=(*self._without_value(name, value.slug), (name, value.slug)))

    def toggled(self, param: str, slug: str) -> QueryState:
        """With the value included (or no longer, if it was); never both included and excluded."""
        kept = self._without_value(param, slug)
        if self.has(param, slug):
            return self.replace(selected=kept)
        return self.replace(selected=(*kept, (param, slug)))

    def toggled_exclusion(self, param: str, slug: str) -> QueryState:
        """With the value excluded (or no longer, if it was)."""
        kept = self._without_value(param, slug)
        name = facets.BY_PARAM[param].exclude_param
        if self.has(name, slug):
            return self.replace(selected=kept)
        return self.replace(selected=(*kept, (name, slug)))

    def ordered(self, ordering: str) -> QueryState:
        """In another order (`ordering=`, one of filtersets.ORDERINGS; "" for the default), on
        its first page."""
        kept = tuple(s for s in self.selected if s[0] != ORDERING_PARAM)
        return self.replace(selected=(*kept, *([(ORDERING_PARAM, ordering)] if ordering else [])))

    @property
    def ordering(self) -> str:
        """The `ordering=` in use ("" for the default: newest first, best match with words)."""
        return next((slug for name, slug in self.selected if name == ORDERING_PARAM), "")

    def without(self, name: str, slug: str) -> QueryState:
        return self.replace(selected=tuple(s for s in self.selected if s != (name, slug)))

    def _without_value(self, param: str, slug: str) -> tuple[tuple[str, str], ...]:
        names = facets.BY_PARAM[param].params
        return tuple(s for s in self.selected if s not in {(n, slug) for n in names})

    # --- chips ---------------------------------------------------------------------------------

    def chips(self, values_by_slug: Mapping[tuple[str, str], FacetValue]) -> list[Chip]:
        """The applied filters, each with the link that removes it (the words first)."""
        found = []
        if self.q:
            found.append(Chip("Search", self.q, False, self.replace(q="").href()))
        for name, slug in self.selected:
            if name in FIELD_FILTERS:
                text = field_value_label(name, slug)
                remove = self.without(name, slug).href()
                found.append(Chip(FIELD_FILTERS[name], text, False, remove))
                continue
            spec = facets.spec_of_param(name)
            value = values_by_slug.get((spec.facet, slug)) if spec else None
            if spec is not None and value is not None:
                excluded = name == spec.exclude_param
                found.append(
                    Chip(spec.label, value.name, excluded, self.without(name, slug).href())
                )
        return found


@functools.lru_cache(maxsize=8192)
def _encoded_pair(name: str, slug: str) -> str:
    """ "name=slug", encoded (the same few thousand pairs are asked for on every page)."""
    return urlencode([(name, slug)])


def value_link(value: FacetValue, view_name: str = "incidents:case-list") -> str:
    """A page (the library by default) filtered by one facet value: "/?symptom=nccl-timeout"."""
    return QueryState().on(view_name).including(value).href()
