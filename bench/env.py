"""The benchmarks' environment, set before Django is imported: their own database and
Redis prefix, and the secret key of the listeners they start (``tests.e2e.harness``),
so that access hashes computed in the benchmark match the listener's.

A benchmark puts the project root on ``sys.path`` and imports this module first.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "telesrv_project.settings")
os.environ.setdefault("TELESRV_DB_NAME", "telesrv_bench")
os.environ.setdefault("TELESRV_REDIS_PREFIX", "bench")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

from tests.e2e.harness import TEST_SECRET_KEY

os.environ.setdefault("TELESRV_SECRET_KEY", TEST_SECRET_KEY)
