"""The app's routes plus a hello-world view, the bench's measure of what the server itself costs."""

from __future__ import annotations

from django.http import HttpRequest
from django.http import HttpResponse
from django.urls import path

from incidents.config.urls import urlpatterns as app_urlpatterns


def hello(request: HttpRequest) -> HttpResponse:
    """The cheapest response the same middleware and server can give."""
    return HttpResponse("hello", content_type="text/plain")


urlpatterns = [path("bench/hello/", hello), *app_urlpatterns]
