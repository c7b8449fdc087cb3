"""The multi-machine test bed (scripts/testbed.py, docs/scaling.md): real Telethon
and Kurigram clients through HAProxy to three listeners, each in its own network namespace, on a
Redis Cluster of three masters with a replica each.

Users on different listeners chat live in a supergroup and privately; a listener is
killed (SIGKILL: no goodbye) and its user carries on through another one, catching up
through updates.getDifference / getChannelDifference with nothing lost; a Redis master
is killed, its replica takes over, and sends go on with no pts hole.

Needs root (network namespaces; loopback addresses otherwise), haproxy, redis-server and
ip: the Makefile's `test` target installs them, and this test installs what is missing
where it can.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from accounts_app.models import User
from tests.e2e import harness
from tests.e2e.test_haproxy import haproxy_binary

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
# The bed's Redis: a cluster (the deployment this test is about) unless told otherwise.
REDIS_MODE = os.environ.get("TELESRV_TESTBED_REDIS", "cluster")


def load_testbed():
    spec = importlib.util.spec_from_file_location("testbed", ROOT / "scripts" / "testbed.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("testbed", module)
    spec.loader.exec_module(module)
    return module


def require_packages() -> None:
    """redis-server (and redis-cli) and ip from Debian, installed here when missing."""
    haproxy_binary()
    missing = [
        pkg
        for tool, pkg in (("redis-server", "redis-server"), ("redis-cli", "redis-tools"), ("ip", "iproute2"))
        if not shutil.which(tool)
    ]
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip(f"{', '.join(missing)} missing and not installable here: `make testbed`")
    done = subprocess.run(
        ["apt-get", "install", "-y", *missing], capture_output=True, text=True, timeout=600, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"{missing} could not be installed: {done.stderr.strip()[-300:]}")


@pytest.fixture
def bed(edge_env, edge_rsa_key, tmp_path):
    require_packages()
    testbed = load_testbed()
    env = {
        "TELESRV_MEDIA_DIR": edge_env["TELESRV_MEDIA_DIR"],
        # The test computes access hashes itself: the listeners share its secret key.
        "TELESRV_SECRET_KEY": os.environ["TELESRV_SECRET_KEY"],
        "TELESRV_TEST_PHONE_NUMBERS": "1",
        "TELESRV_LOG_LOGIN_CODES": "1",
        # Three listeners beside the test suite's own connections: a few clients need
        # few PostgreSQL connections.
        "TELESRV_CHANNEL_DB_POOL": "4",
    }
    with testbed.Testbed(
        tmp_path / "bed",
        db_name=edge_env["TELESRV_DB_NAME"],
        rsa_key=edge_rsa_key,
        redis_cluster=REDIS_MODE == "cluster",
        env=env,
    ) as running:
        yield running
        # Nothing went wrong in the listeners but what the test did to them: a lost Redis
        # master costs the subscriber its connection, which it logs and makes again, and
        # may fail a round of lease renewals (the next round renews them).
        expected = ("push subscriber lost Redis", "renewing presence leases failed")
        for lst in running.listeners:
            errors = [
                line
                for line in lst.log().splitlines()
                if re.search(r" (ERROR|CRITICAL) ", line) and not any(e in line for e in expected)
            ]
            assert not errors, f"l{lst.index + 1}: {errors}"


def metric_on(bed, name: str) -> dict[int, float]:
    """A metric's value on each live listener (``telesrv_sessions``: its live sessions)."""
    out = {}
    for lst in bed.listeners:
        if lst.alive:
            with urllib.request.urlopen(lst.metrics_url, timeout=5) as answer:
                found = re.search(rf"^{name} (\S+)$", answer.read().decode(), re.M)
            assert found, f"l{lst.index + 1} exports no {name}"
            out[lst.index] = float(found.group(1))
    return out


async def where_it_lands(bed, connect) -> int:
    """The listener a new connection made by ``connect()`` reached."""
    before = await asyncio.to_thread(metric_on, bed, "telesrv_sessions")
    await connect()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        after = await asyncio.to_thread(metric_on, bed, "telesrv_sessions")
        grown = [i for i, n in after.items() if n > before.get(i, 0)]
        if len(grown) == 1:
            return grown[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"no single listener took the connection: {before} -> {after}")


class Member:
    """A Telethon 1.45 user through the balancer, recording every message pushed to it."""

    def __init__(self, bed, name: str, source: str) -> None:
        from telethon import TelegramClient, connection, events
        from telethon.sessions import MemorySession

        host, port = bed.front
        harness.telethon_trust(_public_pem(bed))
        session = MemorySession()
        session.set_dc(2, host, port)
        self.name = name
        self.client = TelegramClient(
            session, harness.API_ID, harness.API_HASH, connection=connection.ConnectionTcpAbridged,
            receive_updates=True, connection_retries=1, retry_delay=0, timeout=10, request_retries=1,
            auto_reconnect=False, catch_up=False, sequential_updates=True, local_addr=(source, 0),
        )  # fmt: skip
        self.seen: list[str] = []
        # (pts, pts_count) of each live channel update, in arrival order.
        self.channel_pts: list[tuple[int, int]] = []
        self.client.add_event_handler(self._on_message, events.NewMessage())
        self.client.add_event_handler(self._on_raw, events.Raw())
        self.user = None
        self.listener = -1

    async def _on_message(self, event) -> None:
        self.seen.append(event.message.message)

    async def _on_raw(self, update) -> None:
        in_channel = type(update).__name__ == "UpdateNewChannelMessage" or hasattr(update, "channel_id")
        if in_channel and getattr(update, "pts", None) is not None:
            self.channel_pts.append((update.pts, update.pts_count))

    async def login(self, bed) -> None:
        phone, code = harness.fresh_phone()
        self.user = await User.objects.acreate(phone=phone, first_name=self.name)
        self.listener = await where_it_lands(bed, self.client.connect)
        sent = await self.client.send_code_request(phone)
        await self.client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)

    async def wait_for(self, texts: list[str], timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while not set(texts) <= set(self.seen):
            if time.monotonic() > deadline:
                missing = [t for t in texts if t not in self.seen]
                raise AssertionError(f"{self.name} (on l{self.listener + 1}) never got {missing}")
            await asyncio.sleep(0.05)


class KurigramMember:
    """A Kurigram 2.2.26 user through the balancer (another client family), recording
    every message pushed to it."""

    def __init__(self, bed, name: str) -> None:
        host, port = bed.front
        shim = harness.EdgeServer(host, port, bed.rsa_key, bed.haproxy, bed.workdir / "haproxy.log")
        self.name = name
        self.client = harness.make_kurigram(shim, "abridged", name=name, no_updates=False, workers=1)
        self.seen: list[str] = []
        self.user = None
        self.listener = -1

    async def login(self, bed) -> None:
        from pyrogram.handlers import MessageHandler

        async def on_message(_client, message) -> None:
            self.seen.append(message.text)

        self.client.add_handler(MessageHandler(on_message))
        phone, code = harness.fresh_phone()
        self.user = await User.objects.acreate(phone=phone, first_name=self.name)
        self.listener = await where_it_lands(bed, self.client.connect)
        sent = await self.client.send_code(phone)
        await self.client.sign_in(phone, sent.phone_code_hash, code)
        await self.client.initialize()

    wait_for = Member.wait_for

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.client.stop() if self.client.is_initialized else await self.client.disconnect()


def _public_pem(bed) -> str:
    from mtproto.crypto import RsaKey

    return RsaKey.load(bed.rsa_key).public_pem()


def input_user(viewer, target):
    from telethon import types

    from accounts_app.access import user_access_hash

    return types.InputUser(user_id=target.id, access_hash=user_access_hash(viewer.id, target.id))


def input_peer_user(viewer, target):
    from telethon import types

    from accounts_app.access import user_access_hash

    return types.InputPeerUser(user_id=target.id, access_hash=user_access_hash(viewer.id, target.id))


async def send(member: Member, peer, text: str, deadline: float = 20) -> None:
    """messages.sendMessage with a fixed random_id, repeated until it is answered: a send
    cut off by a failover is retried as a client would, and must land exactly once."""
    from telethon import functions

    random_id = random.getrandbits(63)
    until = time.monotonic() + deadline
    while True:
        try:
            await member.client(
                functions.messages.SendMessageRequest(peer=peer, message=text, random_id=random_id)
            )
            return
        except Exception:
            if time.monotonic() > until:
                raise
            await asyncio.sleep(0.3)


async def channel_difference(member: Member, channel, pts: int):
    """Every message of ``channel`` after ``pts``, as ``member`` catches up: (texts in
    order, the pts of each event, the final pts)."""
    from telethon import functions, types

    texts, points = [], []
    while True:
        diff = await member.client(
            functions.updates.GetChannelDifferenceRequest(
                channel=channel, filter=types.ChannelMessagesFilterEmpty(), pts=pts, limit=100, force=True
            )
        )
        if isinstance(diff, types.updates.ChannelDifferenceEmpty):
            return texts, points, diff.pts
        assert isinstance(diff, types.updates.ChannelDifference), diff
        texts += [m.message for m in diff.new_messages if isinstance(m, types.Message)]
        points += [u.pts for u in diff.other_updates if hasattr(u, "pts")]
        pts = diff.pts
        if diff.final:
            return texts, points, pts


async def test_users_on_three_listeners_chat_survive_a_listener_and_a_redis_master(bed):
    from telethon import functions, types

    # Three users, one per listener: the balancer deals connections round robin, and the
    # listeners' session counts say where each one went.
    prefix = bed.layout.loopback
    ann, bob, cid = (Member(bed, name, f"{prefix}.{101 + n}") for n, name in enumerate(("Ann", "Bob", "Cid")))
    members = [ann, bob, cid]
    dee = KurigramMember(bed, "Dee")
    try:
        for m in members:
            await m.login(bed)
        assert sorted(m.listener for m in members) == [0, 1, 2], [m.listener for m in members]
        await dee.login(bed)
        # The listener saw each client's own address (PROXY protocol v2), not HAProxy's.
        auths = await bob.client(functions.account.GetAuthorizationsRequest())
        assert [a.ip for a in auths.authorizations if a.current] == [f"{prefix}.102"]

        # A supergroup of the three; everyone on their own listener gets everyone's posts.
        made = await ann.client(
            functions.channels.CreateChannelRequest(title="bed", about="", megagroup=True)
        )
        chan = made.chats[0]
        channel = types.InputChannel(chan.id, chan.access_hash)
        group = types.InputPeerChannel(chan.id, chan.access_hash)
        await ann.client(
            functions.channels.InviteToChannelRequest(
                channel=channel, users=[input_user(ann.user, u.user) for u in (bob, cid, dee)]
            )
        )
        async for _ in dee.client.get_dialogs():  # Kurigram learns the group's access hash
            pass
        for m in members:
            await send(m, group, f"hello from {m.name}")
        await dee.client.send_message(-1000000000000 - chan.id, "hello from Dee")
        for m in [*members, dee]:
            await m.wait_for([f"hello from {o.name}" for o in [*members, dee] if o is not m])
        # Private chats between listeners.
        await send(ann, input_peer_user(ann.user, bob.user), "ann to bob")
        await send(cid, input_peer_user(cid.user, ann.user), "cid to ann")
        await bob.wait_for(["ann to bob"])
        await ann.wait_for(["cid to ann"])
        # Targeted delivery: while nobody moves, no listener receives an event that
        # concerns none of its sessions.
        unwanted = await asyncio.to_thread(metric_on, bed, "telesrv_push_events_unwanted_total")
        steady = [f"steady {i}" for i in range(4)]
        for i, text in enumerate(steady):
            await send(members[i % 3], group, text)
        await send(bob, input_peer_user(bob.user, cid.user), "bob to cid")
        await cid.wait_for(["bob to cid", *steady[:2], steady[3]])
        assert await asyncio.to_thread(metric_on, bed, "telesrv_push_events_unwanted_total") == unwanted

        # Bob's listener dies. While Bob is cut off, the others go on talking to him.
        state = await bob.client(functions.updates.GetStateRequest())
        _, _, bob_channel_pts = await channel_difference(bob, channel, 1)
        victim = bob.listener
        bed.kill_listener(victim)
        missed = [f"while bob was away {i}" for i in range(5)]
        for i, text in enumerate(missed):
            await send(ann if i % 2 else cid, group, text)
        await send(ann, input_peer_user(ann.user, bob.user), "private while away")
        await cid.wait_for(missed[1::2])
        assert not set(missed) & set(bob.seen)

        # Bob reconnects (same auth key) through the balancer to a live listener and
        # catches up: the private message and every group message, each once.
        await bob.client.disconnect()
        bob.listener = await where_it_lands(bed, bob.client.connect)
        assert bob.listener != victim
        diff = await bob.client(
            functions.updates.GetDifferenceRequest(pts=state.pts, date=state.date, qts=state.qts)
        )
        assert [m.message for m in diff.new_messages] == ["private while away"], diff
        texts, _, _ = await channel_difference(bob, channel, bob_channel_pts)
        assert texts == missed
        # And he is live again, on his new listener.
        await send(cid, group, "welcome back")
        await bob.wait_for(["welcome back"])

        if REDIS_MODE != "cluster":
            return
        # The Redis master holding the group's counters dies; its replica takes over.
        _, _, start_pts = await channel_difference(ann, channel, 1)
        before = [f"before failover {i}" for i in range(3)]
        after = [f"after failover {i}" for i in range(6)]
        for text in before:
            await send(ann, group, text)
        killed, promoted, took = bed.redis.kill_master_of(channel_hash_tag(chan.id))
        failover = f"Redis {killed.port} killed, {promoted.port} promoted after {took:.1f}s"
        for i, text in enumerate(after):
            await send((ann, bob)[i % 2], group, text)
        # Stored once each, in order, with no hole. One pts each, except where a
        # client's retry of a send overlapped its first attempt across the failover: the
        # losing attempt's pts is held by a noop, so the pts moves by two for that
        # message (docs/reliability.md, "Failover noops"); the difference covers it.
        texts, _, end_pts = await channel_difference(cid, channel, start_pts)
        assert texts == before + after, failover
        assert start_pts + len(texts) <= end_pts <= start_pts + 2 * len(texts), (end_pts, failover)
        # Cid only watched. Pushes published while his listener's subscription moves to
        # the promoted master are lost; the next one that reaches him shows Telethon a
        # pts gap, which it fills with getChannelDifference: he ends up with every
        # message, once, in pts order. (Kurigram keeps no channel pts: it would stay
        # without the lost pushes.)
        for k in range(20):
            if any(t.startswith("settled") for t in cid.seen):
                break
            await send(bob, group, f"settled {k}")
            await asyncio.sleep(1)
        await cid.wait_for(before + after, timeout=20)
        got = [t for t in cid.seen if t in before + after]
        assert got == before + after, (got, failover)
        live = [p for p, _ in cid.channel_pts if p > start_pts]
        assert live == sorted(set(live)), (live, failover)
    finally:
        for m in members:
            await m.client.disconnect()
        await dee.stop()


def channel_hash_tag(channel_id: int) -> str:
    """A key in the slot of the channel's keys (its counters and pub/sub channel)."""
    return f"{{c:{channel_id}}}"
