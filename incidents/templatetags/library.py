"""`{% filter_url %}`: the one way a template links to filtered cases.

    {% filter_url "incidents:case-list" value %}          /?symptom=nccl-timeout
    {% filter_url "incidents:case-list" value other %}    /?component=gpu&symptom=ecc-error
    {% filter_url "incidents:cost" state %}               the page's filters, on the cost view
    {% filter_url "incidents:case-list" state value %}    the page's filters and one value more

Each argument after the view name is a QueryState (its text and facet filters are kept) or a
FacetValue (its cases only). The URL is built by QueryState, never by the template.
"""

from __future__ import annotations

import functools

from django import template
from django.urls import get_script_prefix
from django.urls import get_urlconf

from incidents.amounts import BOUND_SIGNS
from incidents.amounts import figure_text
from incidents.amounts import percent
from incidents.amounts import signed
from incidents.models import CostFigure
from incidents.models import FacetValue
from incidents.presenters.query_state import QueryState

register = template.Library()


@register.simple_tag
def filter_url(view_name: str, *parts: QueryState | FacetValue) -> str:
    """The URL of `view_name` filtered by the given states and values, in that order."""
    if len(parts) == 1 and isinstance(parts[0], FacetValue):
        # One value's cases (a case card's links, a breakdown's): the same few hundred on
        # every page, each remembered.
        value = parts[0]
        return _value_url(view_name, value.facet, value.slug, get_urlconf(), get_script_prefix())
    state = QueryState().on(view_name)
    for part in parts:
        if isinstance(part, QueryState):
            state = state.replace(q=part.q or state.q, selected=(*state.selected, *part.selected))
        elif isinstance(part, FacetValue):
            state = state.including(part)
        else:
            raise TypeError(f"filter_url takes QueryState or FacetValue arguments, not {part!r}")
    return state.href()


@functools.lru_cache(maxsize=4096)
def _value_url(view_name: str, facet: str, slug: str, urlconf: object, prefix: str) -> str:
    """`filter_url(view_name, value)` for the value of `facet` and `slug` (under the URLconf and
    script prefix it was reversed with)."""
    return QueryState().on(view_name).including(FacetValue(facet=facet, slug=slug)).href()


@register.filter
def bound_sign(bound: str) -> str:
    """A bound as a sign for a table cell: "more_than" -> ">"."""
    return BOUND_SIGNS.get(bound, "")


@register.filter
def cost_text(figure: CostFigure) -> str:
    """A cost figure in words with its bound and unit: "less than 2,120,000 GPU-hours"."""
    return figure_text(figure.value, figure.bound, figure.unit, derived=figure.derived)


@register.filter
def share(value: float, bound: str = "") -> str:
    """A share rounded as printed, with its bound as a sign: "> 82%", "30.5%"."""
    return signed(percent(round(value, 2)), bound)
