"""The case page: the whole case card, similar cases, and the kubegap checks that cite it."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from incidents.models import Case
from incidents.presenters import case_page
from incidents.selectors.cases import case_detail as select_case
from incidents.selectors.checks import checks_citing
from incidents.selectors.related import broad_areas, similar_cases


def case_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The case card: symptoms, causes, components, factors, detection, remedies, lessons, sources."""
    try:
        case = select_case(slug=slug)
    except Case.DoesNotExist as exc:
        raise Http404(f"No case with slug {slug!r}") from exc
    context = case_page.context(case)
    context["similar"] = similar_cases(case=case)
    context["areas"] = broad_areas(case=case)
    context["checks"] = checks_citing(case.slug)
    return render(request, "incidents/case_detail.html", context)
