"""The cost view /cost/: share by count against share by cost, then each case's costs by kind.

It takes the library's filter parameters (read by the one CaseFilterSet). An unknown value gets a
message naming it and a 400 status; the rest of the page still works with the valid filters.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from incidents.presenters import cost_page
from incidents.selectors.cost import cost_view


def cost(request: HttpRequest) -> HttpResponse:
    """The lesson from the selected cases' breakdown tables, and their costs kind by kind."""
    view = cost_view(params=request.GET)
    problems = [
        f"{name}: {message}" for name, messages in view.query.errors.items() for message in messages
    ]
    context = cost_page.context(view, request.GET, problems)
    return render(request, "incidents/cost.html", context, status=400 if problems else 200)
