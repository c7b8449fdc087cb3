"""Create the configured PostgreSQL database if it does not exist yet.

Run as ``python -m telesrv_project.database`` before ``migrate``; Django itself cannot
connect to a database that is not there.
"""

import os
import sys

import psycopg
from psycopg import sql


def ensure_database() -> bool:
    """Create the database named by the settings; return True if it was created."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "telesrv_project.settings")
    from django.conf import settings

    db = settings.DATABASES["default"]
    params = {
        "host": db["HOST"],
        "port": db["PORT"],
        "user": db["USER"],
        "password": db["PASSWORD"] or None,
        "dbname": "postgres",
        "autocommit": True,
        # On the primary of a host list (TELESRV_DB_HOSTS).
        **{k: (db.get("OPTIONS") or {}).get(k) for k in ("target_session_attrs", "connect_timeout")},
    }
    with psycopg.connect(**params) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (db["NAME"],)).fetchone()
        if exists:
            return False
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db["NAME"])))
        return True


if __name__ == "__main__":
    created = ensure_database()
    from django.conf import settings

    name = settings.DATABASES["default"]["NAME"]
    print(f"database {name!r} {'created' if created else 'already exists'}", file=sys.stderr)
