from django.urls import path, register_converter

from incidents import (
    browse_views,
    case_views,
    checks_views,
    cost_views,
    graph_views,
    submit_views,
    views,
)

app_name = "incidents"
register_converter(browse_views.FacetPathConverter, "facetpath")

urlpatterns = [
    path("", views.case_list, name="case-list"),
    path("cases/<slug:slug>/", case_views.case_detail, name="case-detail"),
    path("checks/", checks_views.check_list, name="check-list"),
    path("graph/", graph_views.graph_page, name="graph"),
    path("graph/data.json", graph_views.graph_data, name="graph-data"),
    path("cost/", cost_views.cost, name="cost"),
    path("submit/", submit_views.submit, name="submit"),
    path("submit/added/<slug:slug>/", submit_views.submit_done, name="submit-done"),
    path("browse/", browse_views.browse_index, name="browse"),
    path("<facetpath:facet>/", browse_views.facet_tree, name="facet-tree"),
    path("<facetpath:facet>/<slug:slug>/", browse_views.facet_value, name="facet-value"),
]
