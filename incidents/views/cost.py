"""The cost view /cost/: share by count against share by cost, then each case's costs by kind.

It takes the library's filter parameters (read by the one CaseFilterSet). An unknown value gets a
message naming it and the closest known values, and the rest of the page works with the valid
filters (the policy of incidents.selectors.parameters: 200 on a page).
"""

from __future__ import annotations

from django.http import HttpRequest
from django.http import HttpResponse
from django.shortcuts import render

from incidents.presenters import cost_page
from incidents.selectors.cost import cost_view
from incidents.selectors.parameters import filter_problems
from incidents.selectors.parameters import messages


def cost(request: HttpRequest) -> HttpResponse:
    """The lesson from the selected cases' breakdown tables, and their costs kind by kind."""
    view = cost_view(params=request.GET)
    problems = messages(filter_problems(request.GET, view.query.errors, view.query.vocabulary))
    return render(request, "incidents/cost.html", cost_page.context(view, request.GET, problems))
