"""Every model change has its migration: ``make serve`` on a fresh clone must not tell
the operator to run ``makemigrations``."""

import io

from django.core.management import call_command


def test_makemigrations_check_is_clean(db):
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()
