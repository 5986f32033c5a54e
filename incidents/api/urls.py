from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.urls import include
from django.urls import path
from django.urls import re_path
from drf_spectacular.views import SpectacularAPIView
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from incidents.api import breakdowns
from incidents.api import checks
from incidents.api import exports
from incidents.api import root
from incidents.api import suggest
from incidents.api import views
from incidents.api.reads import MethodsFirst


class SchemaView(MethodsFirst, SpectacularAPIView):
    """The OpenAPI schema; another method than GET, HEAD or OPTIONS is a 405."""


class DocsView(MethodsFirst, SpectacularSwaggerSplitView):
    """The schema's interactive documentation; likewise."""


app_name = "api"

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("cases", views.CaseViewSet, basename="case")

urlpatterns = [
    path("", root.ApiRootView.as_view(), name="root"),
    re_path(
        r"^cases/export\.(?P<export_format>csv|json|ndjson)$",
        exports.CaseExportView.as_view(),
        name="case-export",
    ),
    path("facets/", views.FacetCountsView.as_view(), name="facets"),
    path("suggest/", suggest.SuggestView.as_view(), name="suggest"),
    path("breakdowns/", breakdowns.BreakdownListView.as_view(), name="breakdown-list"),
    path("checks/", checks.CheckListView.as_view(), name="check-list"),
    path("checks/<str:check_id>/", checks.CheckDetailView.as_view(), name="check-detail"),
    path("schema/", SchemaView.as_view(), name="schema"),
    # Swagger UI's script is a static file (the split view); its bundle sets inline styles, so the
    # docs page alone allows inline style. Inline script stays refused.
    path(
        "docs/",
        csp_update({"style-src": [UNSAFE_INLINE]})(DocsView.as_view(url_name="api:schema")),
        name="docs",
    ),
    path("", include(router.urls)),
]
