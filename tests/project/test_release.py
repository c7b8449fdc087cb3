"""Release bookkeeping an operator relies on (docs/operations.md, "Releases and
upgrades"): one version everywhere, and listeners of the previous release staying ready
against a schema migrated past them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_changelog_names_the_version_the_code_reports(settings):
    from telesrv_project.version import VERSION

    changelog = (ROOT / "CHANGELOG.md").read_text()
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert released and released[0] == VERSION == settings.TELESRV_VERSION
    assert "## [Unreleased]" in changelog.split(f"## [{VERSION}]")[0]


@pytest.mark.django_db
def test_a_database_migrated_past_the_code_is_ready_for_it():
    """What an old listener sees during a rolling upgrade: the table of applied
    migrations holds one its code does not know. Pending migrations make a listener
    unready; unknown applied ones must not."""
    from django.db import connection

    from edge_app import health

    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO django_migrations (app, name, applied) VALUES ('channels_app', '9999_next_release', now())"
        )
    try:
        ready, checks = health.readiness()
        assert ready and checks["migrations"] == "ok", checks
    finally:
        with connection.cursor() as cur:
            cur.execute("DELETE FROM django_migrations WHERE name = '9999_next_release'")
