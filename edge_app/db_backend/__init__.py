"""PostgreSQL access that survives database restarts (see docs/reliability.md).

``base`` is the Django backend underneath psqlextra's (``POSTGRES_EXTRA_DB_BACKEND_BASE``);
``liveness`` holds the stale-connection test both it and the psycopg pools use.
"""
