"""The one place every Redis user of telesrv gets its connection, so a single Redis (the
default, ``redis://host:port/db``) and a Redis Cluster (``redis+cluster://host:port[,
host:port...]/``, the seed nodes) both work with the same code.

On a cluster every command goes to the master of its key's slot, so everything that has
to happen atomically (a Lua script, a transaction) names keys of one slot only: key
names carry a hash tag per channel / user / listener (:func:`hash_tag`). Pub/sub is
sharded (``SPUBLISH``/``SSUBSCRIBE``): a channel lives on the shard of its slot.

While a master is lost and its replica not yet promoted (``cluster-node-timeout`` plus
an election, a few seconds), commands of its slots fail; the cluster client retries them
for up to ``TELESRV_REDIS_FAILOVER_WAIT`` seconds (10) before it gives up, so callers
see a slow answer, not an error. docs/operations.md ("Redis Cluster") says what fails
how.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator
from urllib.parse import unquote

import redis
import redis.asyncio as aioredis
from django.conf import settings
from redis.asyncio.cluster import ClusterNode as AsyncClusterNode
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode
from redis.cluster import RedisCluster as SyncRedisCluster
from redis.exceptions import ClusterDownError, MovedError, SlotNotCoveredError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

log = logging.getLogger("telesrv.edge.redis")

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
# A burst of callers waits for a connection instead of failing (per event loop; the
# counters, the bots' keys and publishing share it).
MAX_CONNECTIONS = 128
# A quiet subscription is PINGed every this many seconds; one that heard nothing, not
# even the answer, for two of them is taken for lost (a peer gone without a reset: a
# partitioned network, a powered-off host), noticed 2-3 intervals after it went silent.
# Events published meanwhile reach clients by difference only, so it is short
# (tests/e2e/test_partitions.py measured 20-30 s of silent pushes with 10).
SUBSCRIPTION_PING = float(os.environ.get("TELESRV_REDIS_SUBSCRIPTION_PING", "2"))
# What a failover costs a caller at most before the error reaches it.
FAILOVER_WAIT = float(os.environ.get("TELESRV_REDIS_FAILOVER_WAIT", "10"))
_RETRIED = (RedisConnectionError, RedisTimeoutError, ClusterDownError, SlotNotCoveredError, TryAgainError)


def _url() -> str:
    return settings.REDIS_URL


def is_cluster() -> bool:
    return _url().split("://", 1)[0].lower() in CLUSTER_SCHEMES


def cluster_seeds(url: str | None = None) -> tuple[list[tuple[str, int]], dict]:
    """The seed nodes of a ``redis+cluster://[user:password@]h:p[,h:p...]/`` URL and the
    connection options it carries (credentials, TLS)."""
    url = url or _url()
    scheme, _, rest = url.partition("://")
    netloc = rest.split("/", 1)[0].split("?", 1)[0]
    options: dict = {}
    if "@" in netloc:
        auth, _, netloc = netloc.rpartition("@")
        user, sep, password = auth.partition(":")
        if sep:
            options["username"] = unquote(user) or None
            options["password"] = unquote(password)
        else:
            options["password"] = unquote(user)
    if scheme.lower().startswith("rediss"):
        options["ssl"] = True
    seeds = []
    for part in netloc.split(","):
        host, _, port = part.strip().rpartition(":")
        if not host:
            host, port = port, "6379"
        seeds.append((host.strip("[]"), int(port)))
    if not seeds:
        raise ValueError(f"no seed nodes in {url!r}")
    return seeds, options


def hash_tag(kind: str, ident: int | str) -> str:
    """``{c:123}``: the part of a key name Redis Cluster hashes, so every key of one
    channel (``c``), user (``u``) or listener (``l``) lands in one slot."""
    return f"{{{kind}:{ident}}}"


def key_prefix() -> str:
    return (
        getattr(settings, "REDIS_PREFIX", None) or settings.CACHES["default"].get("KEY_PREFIX") or "telesrv"
    )


class _FailoverTolerantCluster(AsyncRedisCluster):
    """redis-py's cluster client retries a failed command at once, a handful of times:
    all spent before a replica is promoted. This one keeps retrying, with a short pause,
    until ``FAILOVER_WAIT`` passed (the topology is read again before each attempt)."""

    async def execute_command(self, *args, **kwargs):
        deadline = None
        while True:
            try:
                if self._initialize:  # before the slot of a command redis-py cannot map is looked up
                    await self.initialize()
                return await super().execute_command(*args, **kwargs)
            except _RETRIED as exc:
                now = time.monotonic()
                deadline = deadline or now + FAILOVER_WAIT
                if now >= deadline:
                    raise
                log.info("Redis Cluster command %s failed (%s); retrying", args[0], exc)
                self._initialize = True
                await asyncio.sleep(0.2)


class _FailoverTolerantSyncCluster(SyncRedisCluster):
    def execute_command(self, *args, **kwargs):
        deadline = None
        while True:
            try:
                return super().execute_command(*args, **kwargs)
            except _RETRIED:
                now = time.monotonic()
                deadline = deadline or now + FAILOVER_WAIT
                if now >= deadline:
                    raise
                self.nodes_manager.initialize()
                time.sleep(0.2)


_clients: dict[asyncio.AbstractEventLoop, object] = {}
_sync_client = None


def _new_async_client():
    if is_cluster():
        seeds, options = cluster_seeds()
        return _FailoverTolerantCluster(
            startup_nodes=[AsyncClusterNode(h, p) for h, p in seeds],
            max_connections=MAX_CONNECTIONS,
            # A master behind a partition answers nothing: time out and retry elsewhere.
            socket_connect_timeout=2,
            socket_timeout=5,
            socket_keepalive=True,
            **options,
        )
    pool = aioredis.BlockingConnectionPool.from_url(
        _url(),
        max_connections=MAX_CONNECTIONS,
        timeout=10,
        # A Redis cut off without a reset fails the command after 5 s (a send answers
        # INTERNAL) instead of holding it for the kernel's ~15 minutes of retransmissions.
        socket_connect_timeout=2,
        socket_timeout=5,
        socket_keepalive=True,
    )
    return aioredis.Redis(connection_pool=pool)


def client():
    """The Redis client of the running event loop: redis-py's asyncio connections belong
    to the loop that opened them, and sync callers (the admin, commands) run a new loop
    per ``async_to_sync`` call."""
    loop = asyncio.get_running_loop()
    found = _clients.get(loop)
    if found is None:
        for old in [lp for lp in _clients if lp.is_closed()]:
            del _clients[old]  # its loop is gone, and with it the connections
        found = _clients[loop] = _new_async_client()
    return found


def script(source: str):
    """``source`` registered on the running loop's client (EVALSHA, loaded again where a
    node does not know it - a promoted replica has no scripts)."""
    c = client()
    scripts = c.__dict__.setdefault("_telesrv_scripts", {})
    found = scripts.get(source)
    if found is None:
        found = scripts[source] = c.register_script(source)
    return found


async def close_client() -> None:
    """Closes the running loop's client (a short-lived loop before it ends)."""
    found = _clients.pop(asyncio.get_running_loop(), None)
    if found is not None:
        await found.aclose()


def reset() -> None:
    """Forget every client (``REDIS_URL`` changed: tests); the running loop's should be
    closed first with :func:`close_client`."""
    global _sync_client, _topology_stale
    _clients.clear()
    if _sync_client is not None:
        with contextlib.suppress(Exception):
            _sync_client.close()
    _sync_client = None
    _topology_stale = False


def sync_client():
    """The process-wide synchronous client (management commands, the admin's pages)."""
    global _sync_client
    if _sync_client is None:
        if is_cluster():
            seeds, options = cluster_seeds()
            _sync_client = _FailoverTolerantSyncCluster(
                startup_nodes=[ClusterNode(h, p) for h, p in seeds], socket_keepalive=True, **options
            )
        else:
            _sync_client = redis.Redis.from_url(_url())
    return _sync_client


def probe_client(timeout: float):
    """A fresh synchronous client with short timeouts, for health checks (the caller
    closes it)."""
    if is_cluster():
        seeds, options = cluster_seeds()
        return SyncRedisCluster(
            startup_nodes=[ClusterNode(h, p) for h, p in seeds],
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            **options,
        )
    return redis.Redis.from_url(_url(), socket_timeout=timeout, socket_connect_timeout=timeout)


def scan_keys(match: str, count: int = 1000):
    """Every key matching ``match`` (on a cluster: on every master)."""
    c = sync_client()
    if is_cluster():
        for node in c.get_primaries():
            yield from c.scan_iter(match=match, count=count, target_nodes=node)
    else:
        yield from c.scan_iter(match=match, count=count)


def delete_keys(keys: list) -> None:
    """UNLINK ``keys`` (on a cluster, each at its own master)."""
    c = sync_client()
    if not keys:
        return
    if not is_cluster():
        c.unlink(*keys)
        return
    pipe = c.pipeline(transaction=False)  # a cluster pipeline unlinks one key per command
    for k in keys:
        pipe.unlink(k)
    pipe.execute()


async def spublish(channel: str, data: bytes) -> None:
    """SPUBLISH: on a cluster, to the shard of the channel's slot (any node forwards
    nothing: the client sends it there)."""
    await client().spublish(channel, data)


async def spublish_many(channel: str, messages: list[bytes]) -> None:
    """SPUBLISH each of ``messages`` to ``channel`` in order: one round trip on a
    single Redis (a pipeline), one per message on a cluster (its pipelines route by
    key, and a channel is not one)."""
    if len(messages) == 1 or is_cluster():
        for data in messages:
            await client().spublish(channel, data)
        return
    pipe = client().pipeline(transaction=False)
    for data in messages:
        pipe.spublish(channel, data)
    await pipe.execute()


async def _cluster_owners(channels: list[str], refresh: bool) -> dict[tuple[str, int], dict[int, list[str]]]:
    """(host, port) of each channel's slot master -> slot -> channels."""
    from redis.crc import key_slot

    c = client()
    if c._initialize:
        await c.initialize()
    elif refresh:
        await c.nodes_manager.initialize()
    owners: dict[tuple[str, int], dict[int, list[str]]] = {}
    for ch in channels:
        slot = key_slot(ch.encode())
        node = c.nodes_manager.get_node_from_slot(slot)
        owners.setdefault((node.host, node.port), {}).setdefault(slot, []).append(ch)
    return owners


_topology_stale = False  # a subscription lost its node: read the slot map again first


class ShardMoved(RedisConnectionError):
    """The server dropped a shard subscription (its slot moved, or the node turned
    replica after a failover): subscribe again where the slot lives now."""


async def sharded_messages(
    channels: list[str], ready: asyncio.Event | None = None
) -> AsyncIterator[tuple[str, bytes]]:
    """SSUBSCRIBE to ``channels`` (on a cluster, at the master of each channel's slot),
    set ``ready`` once subscribed, then yield ``(channel, data)`` in the order each shard
    delivers them. Raises (ConnectionError or a subclass) when a connection is lost or a
    subscription dropped; the caller calls again to subscribe afresh."""
    global _topology_stale
    channels = list(dict.fromkeys(channels))
    if is_cluster():
        _, options = cluster_seeds()
        owners = await _cluster_owners(channels, refresh=_topology_stale)
        _topology_stale = False
        targets = [
            (
                aioredis.Redis(
                    host=h,
                    port=p,
                    socket_connect_timeout=5,
                    socket_keepalive=True,
                    retry=Retry(NoBackoff(), 0),
                    **options,
                ),
                groups,
            )
            for (h, p), groups in owners.items()
        ]
    else:
        targets = [
            (
                aioredis.Redis.from_url(
                    _url(), socket_connect_timeout=5, socket_keepalive=True, retry=Retry(NoBackoff(), 0)
                ),
                {0: channels},
            )
        ]
    queue: asyncio.Queue = asyncio.Queue()
    pubsubs = []
    readers: list[asyncio.Task] = []
    try:
        for conn, groups in targets:
            ps = conn.pubsub()
            pubsubs.append((conn, ps))
            for group in groups.values():  # one SSUBSCRIBE per slot: a cluster refuses more
                await ps.ssubscribe(*group)
            # Confirmations first, so that ``ready`` means every channel is subscribed.
            wanted = sum(len(g) for g in groups.values())
            while wanted:
                msg = await ps.parse_response(block=True)
                kind = msg[0].decode() if isinstance(msg[0], bytes) else msg[0]
                if kind == "ssubscribe":
                    wanted -= 1
                elif kind == "smessage":  # a slot subscribed before the others
                    channel = msg[1].decode() if isinstance(msg[1], bytes) else msg[1]
                    queue.put_nowait((channel, msg[2]))
        for _, ps in pubsubs:
            heard = [time.monotonic()]
            readers.append(asyncio.ensure_future(_read(ps, queue, heard)))
            readers.append(asyncio.ensure_future(_keep_alive(ps, queue, heard)))
        if ready is not None:
            ready.set()
        while True:
            item = await queue.get()
            if isinstance(item, BaseException):
                raise item
            yield item
    except (MovedError, RedisConnectionError, RedisTimeoutError, OSError):
        _topology_stale = True
        raise
    finally:
        for task in readers:
            task.cancel()
        for _conn, ps in pubsubs:
            with contextlib.suppress(Exception):
                await ps.aclose()
        for conn, _ in targets:
            with contextlib.suppress(Exception):
                await conn.aclose()


async def _read(ps, queue: asyncio.Queue, heard: list[float]) -> None:
    try:
        while True:
            msg = await ps.parse_response(block=True)
            heard[0] = time.monotonic()
            kind = msg[0].decode() if isinstance(msg[0], bytes) else msg[0]
            if kind == "smessage":
                channel = msg[1].decode() if isinstance(msg[1], bytes) else msg[1]
                queue.put_nowait((channel, msg[2]))
            elif kind == "sunsubscribe":
                raise ShardMoved(f"shard subscription to {msg[1]!r} dropped by the server")
    except asyncio.CancelledError:
        raise
    except BaseException as exc:  # handed to the consumer, which raises it
        queue.put_nowait(exc if isinstance(exc, Exception) else RedisConnectionError(str(exc)))


async def _keep_alive(ps, queue: asyncio.Queue, heard: list[float]) -> None:
    """PINGs a quiet subscription; one that stays silent past two intervals is lost."""
    try:
        while True:
            await asyncio.sleep(SUBSCRIPTION_PING)
            if time.monotonic() - heard[0] > 2 * SUBSCRIPTION_PING:
                raise RedisTimeoutError("a shard subscription stopped answering")
            if time.monotonic() - heard[0] > SUBSCRIPTION_PING / 2:
                await ps.ping()
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        queue.put_nowait(exc)
