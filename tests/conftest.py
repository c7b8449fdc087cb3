"""Suite-wide set-up.

The settings default to production (DEBUG off), where a server process refuses the
development secret key: the suite and the servers it starts (tests/e2e) use a key of
their own instead, as a production install would.
"""

import os

TEST_SECRET_KEY = "telesrv-test-suite-key-not-a-secret-" + "x" * 24

os.environ.setdefault("TELESRV_SECRET_KEY", TEST_SECRET_KEY)


def pytest_configure(config):
    from django.conf import settings

    if settings.configured and settings.SECRET_KEY == settings.DEV_SECRET_KEY:
        settings.SECRET_KEY = os.environ["TELESRV_SECRET_KEY"]
