"""Getting kubegap from the library: the /kubegap/ page, the one-file download and RBAC manifest."""

from __future__ import annotations

from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse

from incidents.audit import __version__
from incidents.audit.checks import ALL_CHECKS
from incidents.audit.rbac import manifest
from incidents.staticfinders import PYZ


def get_kubegap(request: HttpRequest) -> HttpResponse:
    """How to download kubegap.pyz, run it, and give it its read-only identity."""
    site = request.build_absolute_uri("/").rstrip("/")
    return render(
        request,
        "incidents/get_kubegap.html",
        {
            "version": __version__,
            "site": site,
            "download": site + reverse("incidents:kubegap-pyz"),
            "rbac_url": site + reverse("incidents:kubegap-rbac"),
            "rbac": manifest(ALL_CHECKS),
            "total": len(ALL_CHECKS),
        },
    )


def download(request: HttpRequest) -> HttpResponse:
    """``/kubegap.pyz``: a stable address for scripts, redirected to the hashed static file."""
    return HttpResponseRedirect(static(PYZ))


def rbac(request: HttpRequest) -> HttpResponse:
    """The ServiceAccount and get/list/watch ClusterRole kubegap needs, for ``kubectl apply -f``."""
    return HttpResponse(manifest(ALL_CHECKS), content_type="application/yaml; charset=utf-8")
