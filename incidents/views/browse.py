"""Browsing by facet: /root-causes/, /components/, ... as trees, and a page per facet value."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from incidents.models import FacetValue
from incidents.selectors import browse as selectors_browse
from incidents.selectors.vocabulary import Vocabulary


class FacetPathConverter:
    """URL segment <-> facet: "root-causes" <-> "root_cause"."""

    regex = "|".join(selectors_browse.FACET_PATHS.values())
    _facet_of = {path: facet for facet, path in selectors_browse.FACET_PATHS.items()}

    def to_python(self, value: str) -> str:
        return self._facet_of[value]

    def to_url(self, value: str) -> str:
        try:
            return selectors_browse.FACET_PATHS[value]
        except KeyError as exc:
            raise ValueError(f"{value!r} is not a facet") from exc


def browse_index(request: HttpRequest) -> HttpResponse:
    """The five facets, each with its number of values and of tagged cases."""
    vocabulary = Vocabulary.load()
    return render(
        request,
        "incidents/browse_index.html",
        {
            "summaries": selectors_browse.facet_summaries(vocabulary=vocabulary),
            "trees": [
                (facet, selectors_browse.FACET_LABELS[facet])
                for facet in selectors_browse.FACET_PATHS
            ],
        },
    )


def facet_tree(request: HttpRequest, facet: str) -> HttpResponse:
    """One facet as a tree, with the number of distinct cases at every level."""
    return render(
        request,
        "incidents/facet_tree.html",
        {
            "facet": facet,
            "label": selectors_browse.FACET_LABELS[facet],
            "tree": selectors_browse.facet_tree(facet=facet),
        },
    )


def facet_value(request: HttpRequest, facet: str, slug: str) -> HttpResponse:
    """One facet value: description, aliases, parent and children, its cases, what occurs with it."""
    try:
        page = selectors_browse.facet_value_page(
            facet=facet, slug=slug, page=request.GET.get("page", 1)
        )
    except FacetValue.DoesNotExist as exc:
        label = selectors_browse.FACET_LABELS[facet].lower()
        raise Http404(f"There is no value {slug!r} among the {label}.") from exc
    return render(
        request,
        "incidents/facet_value.html",
        {"facet": facet, "label": selectors_browse.FACET_LABELS[facet], "page": page},
    )
