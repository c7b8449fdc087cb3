"""Auth keys in PostgreSQL: :class:`mtproto.keys.AuthKeyStore` for the edge.

Every encrypted packet names its key, so lookups are served from an in-process cache;
the database (through a psycopg 3 async pool, not the ORM) is asked once per key and
process, and again for temporary keys after a short while since another edge process
may bind or drop them.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from datetime import UTC, datetime

from psycopg_pool import AsyncConnectionPool

from edge_app import metrics
from edge_app.db_backend.conninfo import conninfo as db_conninfo
from edge_app.db_backend.conninfo import writes_only
from edge_app.db_backend.liveness import PrimaryPool, pool_options
from mtproto.dispatch import ClientInfo
from mtproto.keys import AuthKey

log = logging.getLogger("telesrv.edge.keys")

MAX_CACHED = 100_000
TEMP_KEY_TTL = 60.0
UNKNOWN_TTL = 2.0  # a client retrying with a dropped key should not hammer the database


def conninfo() -> str:
    return db_conninfo("default", application_name="telesrv-edge")


def _ts(value: datetime | None) -> int | None:
    return None if value is None else int(value.timestamp())


def _dt(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


class PostgresAuthKeyStore:
    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool
        self._cache: OrderedDict[int, tuple[AuthKey | None, float]] = OrderedDict()

    @classmethod
    async def open(cls, min_size: int = 1, max_size: int = 8) -> PostgresAuthKeyStore:
        options, check = pool_options(writes_only())
        pool = PrimaryPool(
            conninfo(),
            min_size=min_size,
            max_size=max_size,
            open=False,
            kwargs={"autocommit": True},
            **options,
        )
        check.pool = pool
        await pool.open(wait=True, timeout=30)
        return cls(pool)

    async def close(self) -> None:
        await self.pool.close()

    # --- cache ------------------------------------------------------------------------

    def _cached(self, auth_key_id: int) -> tuple[bool, AuthKey | None]:
        hit = self._cache.get(auth_key_id)
        if hit is None:
            return False, None
        key, fetched = hit
        age = time.monotonic() - fetched
        if (key is None and age > UNKNOWN_TTL) or (
            key is not None and key.is_temporary and age > TEMP_KEY_TTL
        ):
            return False, None
        self._cache.move_to_end(auth_key_id)
        return True, key

    def _remember(self, auth_key_id: int, key: AuthKey | None) -> None:
        self._cache[auth_key_id] = (key, time.monotonic())
        self._cache.move_to_end(auth_key_id)
        while len(self._cache) > MAX_CACHED:
            self._cache.popitem(last=False)

    def forget(self, auth_key_id: int) -> None:
        self._cache.pop(auth_key_id, None)

    # --- AuthKeyStore -------------------------------------------------------------------

    async def get(self, auth_key_id: int) -> AuthKey | None:
        hit, key = self._cached(auth_key_id)
        if not hit:
            async with self.pool.connection() as conn:
                cur = await conn.execute(
                    "SELECT k.key, k.created, k.expires_at, k.perm_auth_key_id, k.dc_id, c.layer"
                    " FROM edge_auth_keys k LEFT JOIN edge_auth_key_clients c ON c.auth_key_id = k.auth_key_id"
                    " WHERE k.auth_key_id = %s",
                    (auth_key_id,),
                )
                row = await cur.fetchone()
            key = None
            if row is not None:
                raw, created, expires_at, perm_id, dc_id, layer = row
                key = AuthKey(
                    bytes(raw), auth_key_id, _ts(created), _ts(expires_at), perm_id, dc_id, layer or 0
                )
            self._remember(auth_key_id, key)
        if key is not None and key.expired():
            return None
        return key

    async def put(self, key: AuthKey) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(
                "INSERT INTO edge_auth_keys (auth_key_id, key, created, expires_at, perm_auth_key_id, dc_id)"
                " VALUES (%s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (auth_key_id) DO UPDATE SET key = EXCLUDED.key, created = EXCLUDED.created,"
                " expires_at = EXCLUDED.expires_at, perm_auth_key_id = EXCLUDED.perm_auth_key_id,"
                " dc_id = EXCLUDED.dc_id",
                (
                    key.auth_key_id,
                    key.key,
                    _dt(key.created),
                    _dt(key.expires_at),
                    key.perm_auth_key_id,
                    key.dc_id,
                ),
            )
        self._remember(key.auth_key_id, key)
        metrics.AUTH_KEYS_CREATED.labels("temporary" if key.expires_at else "permanent").inc()

    async def bind(self, temp_auth_key_id: int, perm_auth_key_id: int, expires_at: int) -> None:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "UPDATE edge_auth_keys SET perm_auth_key_id = %s, bound_at = now(),"
                " expires_at = LEAST(expires_at, %s)"
                " WHERE auth_key_id = %s AND expires_at IS NOT NULL"
                " AND EXISTS (SELECT 1 FROM edge_auth_keys p WHERE p.auth_key_id = %s AND p.expires_at IS NULL)"
                " RETURNING expires_at",
                (perm_auth_key_id, _dt(expires_at), temp_auth_key_id, perm_auth_key_id),
            )
            row = await cur.fetchone()
        if row is None:
            raise KeyError(temp_auth_key_id)
        hit, key = self._cached(temp_auth_key_id)
        if hit and key is not None:
            key.perm_auth_key_id = perm_auth_key_id
            key.expires_at = _ts(row[0])

    async def delete(self, auth_key_id: int) -> None:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "DELETE FROM edge_auth_keys WHERE auth_key_id = %s OR perm_auth_key_id = %s RETURNING auth_key_id",
                (auth_key_id, auth_key_id),
            )
            gone = [r[0] for r in await cur.fetchall()]
            await conn.execute(
                "DELETE FROM edge_auth_key_clients WHERE auth_key_id = ANY(%s)", (gone or [auth_key_id],)
            )
        for kid in [*gone, auth_key_id]:
            self._remember(kid, None)
        # Other edge processes have the keys cached: tell them.
        from edge_app import push

        for kid in {*gone, auth_key_id}:
            push.publish_soon("edge.auth_key_dropped", {"auth_key_id": kid})

    async def expire(self, now: float | None = None) -> int:
        moment = _dt(time.time() if now is None else now)
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "DELETE FROM edge_auth_keys WHERE expires_at IS NOT NULL AND expires_at <= %s RETURNING auth_key_id",
                (moment,),
            )
            gone = [r[0] for r in await cur.fetchall()]
            if gone:
                await conn.execute("DELETE FROM edge_auth_key_clients WHERE auth_key_id = ANY(%s)", (gone,))
        for kid in gone:
            self.forget(kid)
        return len(gone)

    # --- client info ------------------------------------------------------------------

    async def record_client(self, auth_key_id: int, info: ClientInfo, layer: int, ip: str = "") -> None:
        async with self.pool.connection() as conn:
            await conn.execute(
                "INSERT INTO edge_auth_key_clients (auth_key_id, api_id, device_model, system_version,"
                " app_version, system_lang_code, lang_pack, lang_code, layer, ip, first_seen, last_seen)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now(), now())"
                " ON CONFLICT (auth_key_id) DO UPDATE SET api_id = EXCLUDED.api_id,"
                " device_model = EXCLUDED.device_model, system_version = EXCLUDED.system_version,"
                " app_version = EXCLUDED.app_version, system_lang_code = EXCLUDED.system_lang_code,"
                " lang_pack = EXCLUDED.lang_pack, lang_code = EXCLUDED.lang_code, layer = EXCLUDED.layer,"
                " ip = EXCLUDED.ip, last_seen = now()",
                (
                    auth_key_id,
                    info.api_id,
                    info.device_model[:256],
                    info.system_version[:256],
                    info.app_version[:256],
                    info.system_lang_code[:32],
                    info.lang_pack[:64],
                    info.lang_code[:32],
                    layer,
                    ip[:64],
                ),
            )
