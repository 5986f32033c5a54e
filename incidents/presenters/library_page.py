"""What the library page shows, computed from a case list: chips, suggestions, facet trees, links.

Every link is built from the *valid* filters of the request (unknown values are reported, not
carried along), so each click gives a clean, shareable URL.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.db.models import Count
from django.http import QueryDict

from incidents.models import CaseFacetLink, Facet, FacetValue
from incidents.search import Suggestion, suggest_filters
from incidents.selectors.cases import CaseListResult, FacetCount, filter_cases
from incidents.selectors.vocabulary import FACETS

FACET_PARAMS = [param for _facet, param, _label in FACETS]
FACET_OF_PARAM = {param: facet for facet, param, _label in FACETS}
# The sentence the remaining suggestions come from, once `q` was turned into filters.
SENTENCE_PARAM = "words"


@dataclass(frozen=True)
class PageState:
    """The page's parameters: text, facet selections (include and `not_`), sentence and page."""

    q: str = ""
    sentence: str = ""
    selected: tuple[tuple[str, str], ...] = ()  # (parameter, slug), in the order given
    page: int = 1

    def querystring(self) -> str:
        pairs: list[tuple[str, str]] = []
        if self.q:
            pairs.append(("q", self.q))
        pairs.extend(self.selected)
        if self.sentence:
            pairs.append((SENTENCE_PARAM, self.sentence))
        if self.page > 1:
            pairs.append(("page", str(self.page)))
        return f"?{urlencode(pairs)}"

    def has(self, name: str, slug: str) -> bool:
        return (name, slug) in self.selected

    def replace(self, **changes: Any) -> PageState:
        """A copy with the changes; back on the first page unless a page is given."""
        changes.setdefault("page", 1)
        return dataclasses.replace(self, **changes)

    def toggled(self, param: str, slug: str) -> PageState:
        """With the value included (or no longer, if it was); never both included and excluded."""
        kept = tuple(s for s in self.selected if s not in ((param, slug), (f"not_{param}", slug)))
        if self.has(param, slug):
            return self.replace(selected=kept)
        return self.replace(selected=(*kept, (param, slug)))

    def excluded(self, param: str, slug: str) -> PageState:
        """With the value excluded (or no longer, if it was)."""
        kept = tuple(s for s in self.selected if s not in ((param, slug), (f"not_{param}", slug)))
        if self.has(f"not_{param}", slug):
            return self.replace(selected=kept)
        return self.replace(selected=(*kept, (f"not_{param}", slug)))

    def without(self, name: str, slug: str) -> PageState:
        return self.replace(selected=tuple(s for s in self.selected if s != (name, slug)))


@dataclass
class Chip:
    """An applied filter: what it is, and the link that removes it."""

    facet_label: str
    text: str
    excluded: bool
    remove_url: str


@dataclass
class SuggestionLink:
    suggestion: Suggestion
    count: int
    url: str


@dataclass
class FacetNode:
    """A facet value in its tree, with its "what if" count and its links."""

    item: FacetCount
    toggle_url: str
    exclude_url: str
    children: list[FacetNode] = field(default_factory=list)


@dataclass
class FacetTree:
    param: str
    label: str
    roots: list[FacetNode]
    active: bool


@dataclass
class RowValues:
    """A listed case's own values of one facet, each with a link to the cases that share it."""

    label: str
    links: list[tuple[FacetValue, str]]


def state_from(result: CaseListResult, params: QueryDict) -> PageState:
    """The page state made of the request's valid filters."""
    selected = tuple(
        (f"not_{param}" if excluded else param, slug)
        for param, excluded, slugs in result.filterset.active_values()
        for slug in slugs
    )
    page = result.page.number
    return PageState(
        q=params.get("q", "").strip(),
        sentence="" if params.get("q", "").strip() else params.get(SENTENCE_PARAM, "").strip(),
        selected=selected,
        page=page,
    )


def unknown_values(result: CaseListResult, params: QueryDict) -> list[str]:
    """Sentences naming each facet value in the request that the library does not have."""
    vocabulary = result.filterset.vocabulary
    messages = []
    for facet, param, _label in FACETS:
        for name in (param, f"not_{param}"):
            for slug in params.getlist(name):
                if vocabulary.get(facet, slug) is None:
                    messages.append(
                        f"There is no {Facet(facet).label.lower()} “{slug}” in the library"
                        f" (parameter {name}); that filter was left out."
                    )
    facet_names = {n for p in FACET_PARAMS for n in (p, f"not_{p}")}
    for name, errors in result.errors.items():
        if name not in facet_names:
            messages.append(f"The {name} parameter was not used: {' '.join(errors)}")
    return messages


def chips(state: PageState, result: CaseListResult) -> list[Chip]:
    vocabulary = result.filterset.vocabulary
    found = []
    if state.q:
        found.append(Chip("Search", state.q, False, state.replace(q="").querystring()))
    for name, slug in state.selected:
        param = name.removeprefix("not_")
        value = vocabulary.get(FACET_OF_PARAM[param], slug)
        if value is not None:
            found.append(
                Chip(
                    Facet(value.facet).label,
                    value.name,
                    name != param,
                    state.without(name, slug).querystring(),
                )
            )
    return found


def what_if_counts(result: CaseListResult) -> dict[tuple[str, str], int]:
    return {(g.param, item.value.slug): item.count for g in result.facets for item in g.values}


def suggestions(state: PageState, result: CaseListResult) -> list[SuggestionLink]:
    """Facet values found in the search words (or the sentence they came from), not yet applied.

    Following one turns the words into that filter: the text search is dropped, and the sentence
    is kept only while it still names values to suggest.
    """
    source = state.q or state.sentence
    if not source:
        return []
    param_of = {facet: param for facet, param, _label in FACETS}
    found = [
        s
        for s in suggest_filters(
            source, with_counts=False, values=result.filterset.vocabulary.values.values()
        )
        if not state.has(param_of[s.facet], s.value.slug)
        and not state.has(f"not_{param_of[s.facet]}", s.value.slug)
    ]
    counts = _counts_without_text(state, result, found)
    links = []
    for suggestion in found:
        param = param_of[suggestion.facet]
        others = [s for s in found if s is not suggestion]
        after = state.toggled(param, suggestion.value.slug).replace(
            q="", sentence=source if others else ""
        )
        links.append(
            SuggestionLink(
                suggestion, counts.get((param, suggestion.value.slug), 0), after.querystring()
            )
        )
    return links


def _counts_without_text(
    state: PageState, result: CaseListResult, found: list[Suggestion]
) -> dict[tuple[str, str], int]:
    """What following each suggestion gives: its facet's "what if" count, without the text filter.

    One grouped query per facet that has suggestions (at most five), whatever the number of cases.
    """
    counts: dict[tuple[str, str], int] = {}
    vocabulary = result.filterset.vocabulary
    for facet, param, _label in FACETS:
        ids = [s.value.id for s in found if s.facet == facet]
        if not ids:
            continue
        others = state.replace(q="", sentence="")
        others = others.replace(
            selected=tuple(s for s in others.selected if s[0].removeprefix("not_") != param)
        )
        params = QueryDict(others.querystring().lstrip("?"))
        cases = filter_cases(params=params, vocabulary=vocabulary).qs
        by_id = dict(
            CaseFacetLink.objects.filter(case__in=cases.values("id"), value_id__in=ids)
            .values_list("value_id")
            .annotate(n=Count("case_id"))
            .values_list("value_id", "n")
        )
        for value_id, n in by_id.items():
            counts[(param, vocabulary.values[value_id].slug)] = n
    return counts


def facet_trees(state: PageState, result: CaseListResult) -> list[FacetTree]:
    """Each facet as a tree; values that would give no case (and are not applied) are left out."""
    trees = []
    for group in result.facets:
        roots: list[FacetNode] = []
        stack: list[FacetNode] = []
        for item in group.values:
            node = FacetNode(
                item,
                state.toggled(group.param, item.value.slug).querystring(),
                state.excluded(group.param, item.value.slug).querystring(),
            )
            del stack[item.depth :]
            (stack[-1].children if stack else roots).append(node)
            stack.append(node)
        trees.append(
            FacetTree(
                group.param,
                group.label,
                _visible(roots),
                any(i.selected or i.excluded for i in group.values),
            )
        )
    return trees


def _visible(nodes: list[FacetNode]) -> list[FacetNode]:
    kept = []
    for node in nodes:
        node.children = _visible(node.children)
        if node.item.count or node.item.selected or node.item.excluded or node.children:
            kept.append(node)
    return kept


def row_values(values: Mapping[str, list[FacetValue]]) -> list[RowValues]:
    """A case's values per facet (organisations are shown apart), linked to their cases."""
    rows = []
    for facet, param, _label in FACETS:
        if facet == Facet.ORGANISATION or not values.get(facet):
            continue
        links = [(v, PageState(selected=((param, v.slug),)).querystring()) for v in values[facet]]
        rows.append(RowValues(Facet(facet).label, links))
    return rows


def page_links(state: PageState, result: CaseListResult) -> list[tuple[int, str, bool]]:
    """(number, url, current?) for every page; lists are short, so every page is shown."""
    return [
        (number, state.replace(page=number).querystring(), number == result.page.number)
        for number in result.page.paginator.page_range
    ]
