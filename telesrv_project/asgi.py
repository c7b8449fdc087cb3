"""ASGI entry point for the admin console (served by daphne, in its own process)."""

import os

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "telesrv_project.settings")

_django = get_asgi_application()

from edge_app.startup import refuse_unsafe_settings  # noqa: E402 - needs settings loaded

refuse_unsafe_settings()

# The console is the only HTTP surface and its static files are the admin's own few
# dozen assets, so serving them from the app process saves a separate web server.
application = ASGIStaticFilesHandler(_django)
