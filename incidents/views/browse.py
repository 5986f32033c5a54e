"""Browsing by facet: /root-causes/, /components/, ... as trees, and a page per facet value.

The URL segment of each facet comes from the registry (incidents.facets), so a new facet gets
its pages without a new route.
"""

from __future__ import annotations

from django.http import Http404
from django.http import HttpRequest
from django.http import HttpResponse
from django.shortcuts import render

from incidents import facets
from incidents.models import FacetValue
from incidents.presenters import browse_page
from incidents.selectors import browse


class FacetPathConverter:
    """URL segment <-> facet: "root-causes" <-> "root_cause"."""

    regex = "|".join(spec.segment for spec in facets.FACETS)

    def to_python(self, value: str) -> str:
        return facets.BY_SEGMENT[value].facet

    def to_url(self, value: str) -> str:
        try:
            return facets.BY_FACET[value].segment
        except KeyError as exc:
            raise ValueError(f"{value!r} is not a facet") from exc


def browse_index(request: HttpRequest) -> HttpResponse:
    """Every facet, with its number of values and of tagged cases."""
    return render(request, "incidents/browse_index.html", {"summaries": browse.facet_summaries()})


def facet_tree(request: HttpRequest, facet: str) -> HttpResponse:
    """One facet as a tree, with the number of distinct cases at every level."""
    spec = facets.spec(facet)
    return render(
        request,
        "incidents/facet_tree.html",
        {"spec": spec, "tree": browse.facet_tree(spec=spec)},
    )


def facet_value(request: HttpRequest, facet: str, slug: str) -> HttpResponse:
    """One facet value: description, aliases, parent and children, its cases, what occurs with it."""
    spec = facets.spec(facet)
    try:
        page = browse.facet_value_page(spec=spec, slug=slug, page=request.GET.getlist("page"))
    except FacetValue.DoesNotExist as exc:
        raise Http404(f"There is no value {slug!r} among the {spec.plural.lower()}.") from exc
    return render(request, "incidents/facet_value.html", browse_page.value_context(page))
