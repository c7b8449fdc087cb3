"""Django's PostgreSQL backend, replacing a dead connection before it is used.

Django closes unusable connections only around HTTP requests (``close_old_connections``
on request start/finish). The MTProto listener runs the ORM through ``sync_to_async``
with no requests at all, so after a PostgreSQL restart its connection stayed broken and
every ORM call failed until the process was restarted. Here every use outside a
transaction first checks, cheaply (:func:`liveness.looks_dead`), that the server has not
hung up, and reconnects if it has. Inside ``atomic()`` nothing is replaced: the
transaction fails, as it must.
"""

from __future__ import annotations

from django.db.backends.postgresql.base import DatabaseWrapper as PostgresDatabaseWrapper

from .liveness import looks_dead, on_read_only_node


class DatabaseWrapper(PostgresDatabaseWrapper):
    def _replace_if_dead(self) -> None:
        if self.connection is None or self.in_atomic_block:
            return
        if self._writes_only() and on_read_only_node(self.connection):
            # The node was demoted (a failover): reconnecting lets libpq's
            # target_session_attrs=read-write find the new primary.
            self.close()
            return
        if not (self.errors_occurred or looks_dead(self.connection)):
            return
        if self.is_usable():
            self.errors_occurred = False
            return
        self.close()

    def ensure_connection(self):
        self._replace_if_dead()
        super().ensure_connection()

    def close_if_health_check_failed(self):
        self._replace_if_dead()
        super().close_if_health_check_failed()

    def _writes_only(self) -> bool:
        return (self.settings_dict.get("OPTIONS") or {}).get("target_session_attrs") == "read-write"
