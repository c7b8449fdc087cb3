"""ASGI entry point for the admin console (served by daphne, in its own process)."""

import os

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "telesrv_project.settings")

# The console is the only HTTP surface and its static files are the admin's own few
# dozen assets, so serving them from the app process saves a separate web server.
application = ASGIStaticFilesHandler(get_asgi_application())
