"""The case page: the whole case card, similar cases, and the kubegap checks that cite it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from incidents.models import Case, Source
from incidents.selectors import cases as selectors
from incidents.selectors import related as selectors_case
from incidents.selectors.checks import checks_citing


@dataclass(frozen=True)
class NumberedSource:
    """A source with its number on the page and where to find an archived copy."""

    number: int
    source: Source
    archive_lookup: str  # the Internet Archive's captures, when the library holds no archived copy


def case_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The case card: symptoms, causes, components, factors, detection, remedies, lessons, sources."""
    try:
        case = selectors.case_detail(slug=slug)
    except Case.DoesNotExist as exc:
        raise Http404(f"No case with slug {slug!r}") from exc
    sources = [
        NumberedSource(
            index,
            source,
            "" if source.archived_url else selectors_case.wayback_lookup_url(source.url),
        )
        for index, source in enumerate(case.sources.all(), start=1)  # type: ignore[attr-defined]
    ]
    number_of = {s.source.url: s.number for s in sources}
    context: dict[str, Any] = {
        "case": case,
        "values": selectors.values_by_facet(case),
        "sources": sources,
        "figures": [(f, number_of.get(f.source_url)) for f in case.key_figures.all()],  # type: ignore[attr-defined]
        "costs": [(c, number_of.get(c.source_url)) for c in case.costs.all()],  # type: ignore[attr-defined]
        "similar": selectors_case.similar_cases(case=case),
        "areas": selectors_case.broad_areas(case=case),
        "checks": checks_citing(case.slug),
    }
    return render(request, "incidents/case_detail.html", context)
