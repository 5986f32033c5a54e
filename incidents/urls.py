from django.urls import path

from incidents import case_views, checks_views, graph_views, views

app_name = "incidents"

urlpatterns = [
    path("", views.case_list, name="case-list"),
    path("cases/<slug:slug>/", case_views.case_detail, name="case-detail"),
    path("checks/", checks_views.check_list, name="check-list"),
    path("graph/", graph_views.graph_page, name="graph"),
    path("graph/data.json", graph_views.graph_data, name="graph-data"),
]
