"""ASGI entry point for the admin console (served by daphne, in its own process)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "telesrv_project.settings")

application = get_asgi_application()
