"""The case page: the whole case card, similar cases, and the kubegap checks that cite it.

The card depends only on the case and the library, so it is rendered once per library version
and then served from the cache (under the version, selectors.page_cache) until the next write;
an anonymous reader's whole page is cached the same way (views.whole_pages).
"""

from __future__ import annotations

from django.core.cache import cache
from django.http import Http404
from django.http import HttpRequest
from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string

from incidents.models import Case
from incidents.presenters import case_page
from incidents.selectors import direct_index
from incidents.selectors.cases import case_card
from incidents.selectors.checks import checks_citing
from incidents.selectors.library_version import LibraryVersion
from incidents.selectors.page_cache import committed_version
from incidents.selectors.page_cache import key_of
from incidents.selectors.related import broad_areas
from incidents.selectors.related import similar_cases
from incidents.views.whole_pages import cached_for_anonymous

# Cached cards outlive no write (the key holds the version); this only bounds idle ones.
CARD_SECONDS = 24 * 3600


@cached_for_anonymous()  # reads no query parameter: a page with one is not cached
def case_detail(
    request: HttpRequest, slug: str, version: LibraryVersion | None = None
) -> HttpResponse:
    """The case card: symptoms, causes, components, factors, detection, remedies, lessons, sources;
    an anonymous reader's page is cached whole (views.whole_pages), a logged-in reader's card."""
    version = version or committed_version()
    key = f"case-card:{key_of(version)}:{slug}" if version else ""
    card: tuple[str, str] | None = cache.get(key) if key else None
    if card is None:
        card = _render_card(request, slug, version)
        if key:
            cache.set(key, card, CARD_SECONDS)
    title, html = card
    return render(request, "incidents/case_detail.html", {"title": title, "card": html})


def _render_card(
    request: HttpRequest, slug: str, version: LibraryVersion | None
) -> tuple[str, str]:
    # The facet index (at the version this request read) gives the case's own values, the
    # similar cases and the broad areas.
    direct = direct_index.current(version=version)
    try:
        case = case_card(slug=slug, direct=direct)
    except Case.DoesNotExist as exc:
        raise Http404(f"No case with slug {slug!r}") from exc
    context = case_page.context(case)
    context["similar"] = similar_cases(case=case, direct=direct)
    context["areas"] = broad_areas(case=case, vocabulary=direct.index.vocabulary)
    context["checks"] = checks_citing(case.slug)
    return case.title, render_to_string("incidents/_case_card.html", context, request=request)
