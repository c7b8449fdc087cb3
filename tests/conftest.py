"""Suite-wide set-up.

The settings default to production (DEBUG off), where a server process refuses the
development secret key: the suite and the servers it starts (tests/e2e) use a key of
their own instead, as a production install would.
"""

import os

import pytest

TEST_SECRET_KEY = "telesrv-test-suite-key-not-a-secret-" + "x" * 24
_TRUNCATE_FLUSH = None  # Django's own flush, kept for tests that reset sequences

os.environ.setdefault("TELESRV_SECRET_KEY", TEST_SECRET_KEY)


def pytest_configure(config):
    global _TRUNCATE_FLUSH
    from django.conf import settings
    from django.db.backends.postgresql.operations import DatabaseOperations

    _TRUNCATE_FLUSH = DatabaseOperations.sql_flush
    DatabaseOperations.sql_flush = _flush_by_delete

    if settings.configured and settings.SECRET_KEY == settings.DEV_SECRET_KEY:
        settings.SECRET_KEY = os.environ["TELESRV_SECRET_KEY"]
    if settings.configured:
        # In-process tests never reach out to the web for link previews; the servers of
        # tests/e2e preview pages served on this machine, and webpages tests turn it on.
        settings.LINK_PREVIEWS = False


def _flush_by_delete(self, style, tables, *, reset_sequences=False, allow_cascade=False):
    """Between transactional tests: DELETE instead of TRUNCATE. TRUNCATE gives each of
    the ~340 partitioned relations a new file (about 1.5 s per test here); deleting the
    few rows a test wrote costs milliseconds. Foreign keys are deferred, so order does
    not matter; sequences are reset only when a test asks for it (then as Django does)."""
    if reset_sequences or not tables:
        return _TRUNCATE_FLUSH(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    return [f"DELETE FROM {self.quote_name(table)}" for table in tables]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, left by every other connection before it is
    dropped: pools of closed event loops, ORM pool threads and servers the tests started
    may still hold one, and PostgreSQL refuses to drop a database in use."""
    yield
    with django_db_blocker.unblock():
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
