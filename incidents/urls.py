from django.urls import path

from incidents import case_views, checks_views, views

app_name = "incidents"

urlpatterns = [
    path("", views.case_list, name="case-list"),
    path("cases/<slug:slug>/", case_views.case_detail, name="case-detail"),
    path("checks/", checks_views.check_list, name="check-list"),
]
