from django.contrib import admin
from django.urls import path
from django.views.generic import RedirectView

from telesrv_project import probes, public_pages
from webclient_app import views as webclient

urlpatterns = [
    # The root is the console.
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    path("admin/", admin.site.urls),
    path("healthz", probes.healthz),
    path("readyz", probes.readyz),
    path("metrics", probes.metrics_view),
    path("favicon.ico", public_pages.favicon),
    path("login-code", public_pages.login_code),
    # The web client, once built (webclient_app, docs/webclient.md).
    path("web", RedirectView.as_view(url="/web/", permanent=False)),
    path("web/", webclient.app_file),
    path("web/<path:name>", webclient.app_file),
]
