from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from incidents.api import breakdowns, checks, suggest, views

app_name = "api"

router = DefaultRouter()
router.register("cases", views.CaseViewSet, basename="case")

urlpatterns = [
    path("facets/", views.FacetCountsView.as_view(), name="facets"),
    path("suggest/", suggest.SuggestView.as_view(), name="suggest"),
    path("breakdowns/", breakdowns.BreakdownListView.as_view(), name="breakdown-list"),
    path("checks/", checks.CheckListView.as_view(), name="check-list"),
    path("checks/<str:check_id>/", checks.CheckDetailView.as_view(), name="check-detail"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("", include(router.urls)),
]
