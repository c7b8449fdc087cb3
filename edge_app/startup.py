"""Checks a server process makes before it serves anything."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def refuse_unsafe_settings() -> None:
    """The development secret key signs admin sessions with a value anyone can read in
    the repository: only a DEBUG (development) server may use it."""
    if not settings.DEBUG and settings.SECRET_KEY == settings.DEV_SECRET_KEY:
        raise ImproperlyConfigured(
            "TELESRV_SECRET_KEY is not set and DEBUG is off: refusing to start with the development"
            " secret key. Set TELESRV_SECRET_KEY (e.g. in .env; see docs/operations.md), or"
            " TELESRV_DEBUG=1 for a local development server."
        )
