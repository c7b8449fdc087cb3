"""libpq connection strings for the listener's psycopg pools, from Django's
``DATABASES`` (so the pools and the ORM always name the same hosts, and pytest-django's
test database is used automatically).

A multi-host ``HOST``/``PORT`` and ``OPTIONS["target_session_attrs"]`` (see
``telesrv_project.db_hosts``) carry over: a pool of the primary connects only to the node
that accepts writes, a pool of the replica alias prefers a standby.
"""

from __future__ import annotations

from psycopg.conninfo import make_conninfo

# libpq parameters of OPTIONS that a pool takes over; the rest (Django's own, such as
# isolation_level or pool) mean nothing to libpq.
LIBPQ_OPTIONS = (
    "target_session_attrs",
    "connect_timeout",
    "sslmode",
    "load_balance_hosts",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_count",
    "tcp_user_timeout",
)


def conninfo(alias: str = "default", **extra: str) -> str:
    from django.db import connections

    s = connections[alias].settings_dict
    options = s.get("OPTIONS") or {}
    parts = {
        "dbname": s["NAME"],
        "user": s.get("USER") or "",
        "password": s.get("PASSWORD") or "",
        "host": s.get("HOST") or "",
        "port": str(s.get("PORT") or ""),
        **{k: str(options[k]) for k in LIBPQ_OPTIONS if options.get(k)},
        **extra,
    }
    return make_conninfo(**{k: v for k, v in parts.items() if v})


def writes_only(alias: str = "default") -> bool:
    """Connections of ``alias`` must be to a node that accepts writes."""
    from django.db import connections

    options = connections[alias].settings_dict.get("OPTIONS") or {}
    return options.get("target_session_attrs") == "read-write"
