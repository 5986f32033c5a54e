"""What the library page shows, made from what the selectors read: chips, suggestions, facet trees,
case rows, pagination, messages. No queries here; every link comes from the page's QueryState.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from django.core.paginator import Page
from django.http import QueryDict

from incidents import facets
from incidents.facets import FACETS
from incidents.facets import FacetSpec
from incidents.filtersets import ORDERINGS
from incidents.models import Case
from incidents.models import FacetValue
from incidents.presenters.query_state import Chip
from incidents.presenters.query_state import QueryState
from incidents.selectors.cases import CaseListResult
from incidents.selectors.cases import SearchSummary
from incidents.selectors.cases import values_by_facet
from incidents.selectors.facet_counts import CountedSuggestion
from incidents.selectors.facet_counts import FacetCount
from incidents.selectors.facet_counts import FacetGroup
from incidents.selectors.parameters import filter_problems
from incidents.selectors.parameters import messages
from incidents.selectors.vocabulary import Vocabulary


@dataclass(frozen=True)
class SuggestionLink(CountedSuggestion):
    """A suggested filter with the cases following it gives, and the link that applies it."""

    url: str


@dataclass(frozen=True)
class FacetTree:
    """A facet's values that give cases under the filters, as a tree; `active` if one is used."""

    spec: FacetSpec
    roots: list[FacetNode]
    active: bool


@dataclass
class FacetNode:
    """A facet value in its tree, with its "what if" count and its links."""

    item: FacetCount
    toggle_url: str
    exclude_url: str
    children: list[FacetNode] = field(default_factory=list)


@dataclass(frozen=True)
class ValueLinks:
    """A case's own values of one facet, each with a link to the cases that share it."""

    spec: FacetSpec
    links: list[tuple[FacetValue, str]]


@dataclass(frozen=True)
class CaseRow:
    """A listed case: who reported it (the facets that are not about the failure, shown in its
    meta line) and its failure facets' values, all linked to the cases sharing them."""

    case: Case
    meta: list[tuple[FacetValue, str]]
    facets: list[ValueLinks]
    matched: str = ""  # "matches 2 of 3 words" for a partial match of the search words


def chips(state: QueryState, vocabulary: Vocabulary) -> list[Chip]:
    return state.chips(vocabulary.by_slug)


def unknown_values(
    vocabulary: Vocabulary, errors: Mapping[str, list[str]], params: Any
) -> list[str]:
    """Sentences naming each filter value in the request that the library does not have (with
    the closest it has), and any other parameter that was not used (selectors.parameters)."""
    return messages(filter_problems(params, errors, vocabulary))


def suggestion_links(
    state: QueryState, suggestions: list[CountedSuggestion]
) -> list[SuggestionLink]:
    """Links that turn the search words (or the sentence they came from) into each suggestion.

    Following one drops the text search, and keeps the sentence only while it still names
    other values to suggest.
    """
    source = state.q or state.words
    links = []
    for counted in suggestions:
        value = counted.suggestion.value
        others = len(suggestions) > 1
        after = state.toggled(facets.spec(value.facet).param, value.slug).replace(
            q="", words=source if others else ""
        )
        links.append(SuggestionLink(counted.suggestion, counted.count, after.href()))
    return links


@dataclass(frozen=True)
class SortLink:
    """One order the cases can be listed in, and the link that lists them so."""

    label: str
    url: str
    current: bool


def sort_links(state: QueryState) -> list[SortLink]:
    """The orders of the list: the default first (best match with words, else newest first),
    then every other `ordering=`; each link keeps the filters and goes back to page 1."""
    default = "best match" if state.q else "newest"
    current = state.ordering or default
    if current == "newest" and not state.q:
        current = default  # ordering=newest is the default order without words
    choices = [("best match", "Best match")] if state.q else []
    choices += [(key, label) for key, (label, _) in ORDERINGS.items()]
    return [
        SortLink(label, state.ordered("" if key == default else key).href(), key == current)
        for key, label in choices
    ]


def facet_trees(state: QueryState, groups: list[FacetGroup]) -> list[FacetTree]:
    """Each facet as a tree; values that would give no case (and are not applied) are left out."""
    trees = []
    for group in groups:
        roots: list[FacetNode] = []
        stack: list[FacetNode] = []
        for item in group.values:
            node = FacetNode(
                item,
                state.toggled_href(group.spec.param, item.value.slug),
                state.toggled_exclusion_href(group.spec.param, item.value.slug),
            )
            del stack[item.depth :]
            (stack[-1].children if stack else roots).append(node)
            stack.append(node)
        active = any(i.selected or i.excluded for i in group.values)
        trees.append(FacetTree(group.spec, _visible(roots), active))
    return trees


def _visible(nodes: list[FacetNode]) -> list[FacetNode]:
    kept = []
    for node in nodes:
        node.children = _visible(node.children)
        if node.item.count or node.item.selected or node.item.excluded or node.children:
            kept.append(node)
    return kept


def matched_label(search: SearchSummary | None, case: Case) -> str:
    """ "matches 2 of 3 words" when the case holds only some of the search words."""
    if search is None:
        return ""
    held = search.matched_words(case)
    if held is None or held >= search.total_words:
        return ""
    return f"matches {held} of {search.total_words} words"


def case_rows(page: Page[Case], search: SearchSummary | None = None) -> list[CaseRow]:
    """The listed cases with their values linked to the library filtered by each."""
    rows = []
    every_case = QueryState()
    for case in page.object_list:
        links = {
            facet: [
                (v, every_case.toggled_href(facets.spec(v.facet).param, v.slug)) for v in values
            ]
            for facet, values in values_by_facet(case).items()
        }
        rows.append(
            CaseRow(
                case,
                meta=[link for spec in FACETS if not spec.failure for link in links[spec.facet]],
                facets=[
                    ValueLinks(spec, links[spec.facet])
                    for spec in FACETS
                    if spec.failure and links[spec.facet]
                ],
                matched=matched_label(search, case),
            )
        )
    return rows


def did_you_mean(state: QueryState, search: SearchSummary | None) -> tuple[str, str] | None:
    """(corrected words, link searching for them) when a word of the search is in no case."""
    if search is None or search.correction is None:
        return None
    return search.correction.text, state.replace(q=search.correction.text, page=1).href()


def no_match(search: SearchSummary | None) -> str:
    """What the page says when its text search finds no case: the words are in none, or the
    other filters leave none of the cases that hold them."""
    if search is not None and search.held_elsewhere:
        held = search.held_elsewhere
        return (
            f"{held} case holds these words, but none under the other filters."
            if held == 1
            else f"{held} cases hold these words, but none under the other filters."
        )
    if search is not None and not search.asks:
        return (
            "There is no word to search for here: the search reads words of Latin letters and"
            " digits, and skips words such as “the” and “of”."
        )
    if search is not None and search.phrases_only:
        return (
            "No case holds this phrase."
            if search.total_words == 1
            else "No case holds these phrases."
        )
    return "No case holds any of these words."


# Pages linked on either side of the current one (the first and the last are always linked).
PAGE_WINDOW = 2


def page_numbers(current: int, last: int) -> list[int | None]:
    """The page numbers to link: the first, the last and a window around the current page, with
    None where pages are left out ("1 … 4 5 6 7 8 … 5000")."""
    kept = sorted(
        {1, last} | set(range(max(1, current - PAGE_WINDOW), min(last, current + PAGE_WINDOW) + 1))
    )
    numbers: list[int | None] = []
    for number in kept:
        if numbers and number - (numbers[-1] or 0) > 1:
            numbers.append(number - 1 if number - (numbers[-1] or 0) == 2 else None)
        numbers.append(number)
    return numbers


def page_links(state: QueryState, page: Page[Case]) -> list[tuple[int | None, str, bool]]:
    """(number, url, current?) for the pages worth a link, (None, "", False) for a gap: a
    library of 100,000 cases has 5,000 pages, and a link to each would be most of the page."""
    return [
        (number, state.replace(page=number).href(), number == page.number)
        if number is not None
        else (None, "", False)
        for number in page_numbers(page.number, page.paginator.num_pages)
    ]


def context(
    result: CaseListResult,
    state: QueryState,
    suggestions: list[CountedSuggestion],
    params: Any,
) -> dict[str, Any]:
    """Everything the library page's template shows."""
    page = result.page
    vocabulary = result.query.vocabulary
    return {
        "result": result,
        "rows_cache_key": result.cache_key,
        "state": state,
        # Called by the template only when the page's rows are not in the cache.
        "rows": lambda: case_rows(page, result.search),
        # What the page's list of rows depends on besides the version: its cases and which
        # search words each holds.
        "rows_key": ",".join(
            f"{case.id}:{matched_label(result.search, case)}" for case in page.object_list
        ),
        "partial_matches": bool(result.search and result.search.partial),
        "did_you_mean": did_you_mean(state, result.search),
        "no_match": no_match(result.search),
        # The words alone, when the other filters left none of the cases holding them.
        "search_everywhere_url": (
            QueryState(q=state.q).href() if result.search and result.search.held_elsewhere else ""
        ),
        "ranked": bool(result.search and result.search.total_words),
        "chips": chips(state, vocabulary),
        "sort_links": sort_links(state),
        "order_label": next((c.text for c in chips(state, vocabulary) if c.label == "Order"), ""),
        "clear_url": QueryState().href(),
        "suggestions": suggestion_links(state, suggestions),
        # Called by the template only when the trees are not in the cache.
        "trees": lambda: facet_trees(state, result.facets),
        "trees_cache_key": (
            f"{result.cache_key}{state.replace(page=1).href()}" if result.cache_key else ""
        ),
        # The parameters as the filters read them: a value repeated 1,000 times is named once.
        "unknown": [
            *unknown_values(vocabulary, result.errors, result.query.filterset.data or QueryDict()),
            *result.query.notes,
            *([result.page_problem] if result.page_problem else []),
        ],
        "page_links": page_links(state, page),
        "prev_url": (
            state.replace(page=page.previous_page_number()).href() if page.has_previous() else ""
        ),
        "next_url": state.replace(page=page.next_page_number()).href() if page.has_next() else "",
    }
