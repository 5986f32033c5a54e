from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include
from django.urls import path

from incidents.views import errors

urlpatterns = [
    path("healthz", errors.healthz, name="healthz"),
    path("readyz", errors.readyz, name="readyz"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", include("incidents.api.urls")),
    path("", include("incidents.urls")),
]

handler400 = "incidents.views.errors.bad_request"
handler403 = "incidents.views.errors.permission_denied"
handler404 = "incidents.views.errors.page_not_found"
handler500 = "incidents.views.errors.server_error"
