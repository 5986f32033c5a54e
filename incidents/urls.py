from django.urls import path

from incidents import views

app_name = "incidents"

urlpatterns = [
    path("", views.case_list, name="case-list"),
    path("cases/<slug:slug>/", views.case_detail, name="case-detail"),
]
