"""The /checks/ page: what kubegap audits, and the cases behind each check."""

from __future__ import annotations

from itertools import groupby

from django.http import HttpRequest
from django.http import HttpResponse
from django.shortcuts import render

from incidents.selectors.checks import catalog


def check_list(request: HttpRequest) -> HttpResponse:
    """Every kubegap check by category, with severity, what it reads, why, the fix and its cases."""
    entries = sorted(catalog(), key=lambda e: (e.check.category, e.check.id))
    groups = [
        (category, list(items))
        for category, items in groupby(entries, key=lambda e: e.check.category)
    ]
    return render(
        request,
        "incidents/check_list.html",
        {"groups": groups, "total": len(entries)},
    )
