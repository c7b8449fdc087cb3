"""Targeted delivery between listener processes (edge_app.presence, edge_app.push):
users on different listeners chat live in a supergroup and privately, each event
reaches only the listeners holding a recipient (a third listener hears none of a
private chat, no listener receives an event for nobody), a user who moves to another
listener keeps getting updates, and a killed listener's lease lapses while its client,
reconnecting elsewhere, loses nothing (getDifference)."""

from __future__ import annotations

import asyncio
import re
import time
import urllib.request

import pytest

from tests.e2e import harness
from tests.e2e.test_update_delivery import input_user, new_user, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

# A killed listener's users are routed nowhere after this (the default is 30 s).
SHORT_LEASE = {"TELESRV_PRESENCE_LEASE_SECONDS": "3", "TELESRV_PRESENCE_REFRESH_SECONDS": "1"}


def metric(server, name: str, labels: str = "") -> float:
    port = server.env["TELESRV_MTPROTO_HEALTH_PORT"]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
        text = response.read().decode()
    found = re.search(rf"^{re.escape(name + labels)} ([0-9.e+]+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


def unwanted(server) -> float:
    return metric(server, "telesrv_push_events_unwanted_total")


def received(server) -> float:
    return metric(server, "telesrv_push_events_received_total", '{channel="listener"}')


def live_client(server, session=None):
    from telethon import TelegramClient, connection
    from telethon.sessions import MemorySession, StringSession

    harness.telethon_trust(server.public_pem)
    if session is not None:
        session = StringSession(StringSession.save(session))
    else:
        session = MemorySession()
    session.set_dc(2, server.host, server.port)
    return TelegramClient(
        session, harness.API_ID, harness.API_HASH, connection=connection.ConnectionTcpAbridged,
        receive_updates=True, connection_retries=1, retry_delay=0, timeout=10, request_retries=1,
        auto_reconnect=False, catch_up=False, sequential_updates=True,
    )  # fmt: skip


class Person:
    def __init__(self, name: str) -> None:
        self.name = name
        self.user = None
        self.client = None
        self.seen: list[str] = []

    async def login(self, server) -> Person:
        self.user, phone, code = await new_user(self.name)
        await self.attach(live_client(server))
        sent = await self.client.send_code_request(phone)
        await self.client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
        return self

    async def attach(self, client) -> None:
        from telethon import events

        self.client = client
        await client.connect()

        async def on_message(event):
            self.seen.append(event.message.message)

        client.add_event_handler(on_message, events.NewMessage(incoming=True))

    async def move_to(self, server) -> None:
        """The same auth key on a connection to another listener."""
        old = self.client
        await old.disconnect()
        await self.attach(live_client(server, old.session))
        await self.client.get_me()

    async def close(self) -> None:
        if self.client is not None:
            await self.client.disconnect()


async def make_group(owner: Person, *members: Person):
    from telethon import functions, types

    created = await owner.client(
        functions.messages.CreateChatRequest(
            users=[input_user(owner.user, m.user) for m in members], title="Across listeners"
        )
    )
    channel = created.updates.chats[1]
    for p in (owner, *members):
        await p.client.get_dialogs()
    return types.InputPeerChannel(channel.id, channel.access_hash), channel


async def say(person: Person, peer, text: str) -> None:
    from telethon import functions

    await person.client(
        functions.messages.SendMessageRequest(peer, text, random_id=hash((person.name, text)))
    )


def private_peer(viewer: Person, target: Person):
    from telethon import types

    from accounts_app.access import user_access_hash

    return types.InputPeerUser(target.user.id, user_access_hash(viewer.user.id, target.user.id))


async def test_users_on_three_listeners_chat_live_and_each_listener_hears_only_its_users(
    edge_server, start_edge_server, edge_db
):
    second, third = start_edge_server(), start_edge_server()
    alice, bob, carol = Person("Alice"), Person("Bob"), Person("Carol")
    try:
        await alice.login(edge_server)
        await bob.login(second)
        await carol.login(third)
        group, _ = await make_group(alice, bob, carol)
        await asyncio.sleep(0.5)  # the group's lease changes are over
        servers = (edge_server, second, third)
        before = [unwanted(s) for s in servers]
        third_heard = received(third)

        # A private chat between the first two listeners: the third hears nothing of it.
        await say(alice, private_peer(alice, bob), "hi bob")
        await wait_for(lambda: "hi bob" in bob.seen)
        await say(bob, private_peer(bob, alice), "hi alice")
        await wait_for(lambda: "hi alice" in alice.seen)
        assert received(third) == third_heard

        # The supergroup: each listener gets each post once and fans it out itself.
        for who in (alice, bob, carol):
            await say(who, group, f"{who.name} in the group")
        for who in (alice, bob, carol):
            expected = {f"{o.name} in the group" for o in (alice, bob, carol) if o is not who}
            await wait_for(lambda who=who, expected=expected: expected <= set(who.seen))
        for who in (alice, bob, carol):
            texts = [t for t in who.seen if t.endswith("in the group")]
            assert len(texts) == len(set(texts)) == 2, who.name  # each exactly once
        # Steady state: no listener received an event that concerned none of its sessions.
        assert [unwanted(s) for s in servers] == before
    finally:
        for p in (alice, bob, carol):
            await p.close()


async def test_a_user_moving_to_another_listener_keeps_getting_updates(
    edge_server, start_edge_server, edge_db
):
    second, third = start_edge_server(), start_edge_server()
    alice, bob = Person("Alice"), Person("Bob")
    try:
        await alice.login(edge_server)
        await bob.login(second)
        group, _ = await make_group(alice, bob)
        await say(alice, group, "before the move")
        await wait_for(lambda: "before the move" in bob.seen)

        await bob.move_to(third)
        await say(alice, group, "after the move")
        await say(alice, private_peer(alice, bob), "privately after the move")
        await wait_for(lambda: {"after the move", "privately after the move"} <= set(bob.seen))
        assert bob.seen.count("after the move") == 1
        assert bob.seen.count("privately after the move") == 1
        # (The listener he left keeps his idle session, and its lease, until the
        # session's idle time-out: a client coming back there resumes it.)
    finally:
        for p in (alice, bob):
            await p.close()


async def test_a_killed_listeners_lease_lapses_and_its_client_loses_nothing(
    edge_server, edge_env, edge_rsa_key, tmp_path, edge_db
):
    from telethon import functions, types

    from edge_app import presence

    doomed = harness.start_edge({**edge_env, **SHORT_LEASE}, edge_rsa_key, tmp_path / "doomed.log")
    alice, bob = Person("Alice"), Person("Bob")
    try:
        await alice.login(edge_server)
        await bob.login(doomed)
        group, channel = await make_group(alice, bob)
        await say(alice, group, "while alive")
        await wait_for(lambda: "while alive" in bob.seen)
        state = await bob.client(functions.updates.GetStateRequest())
        full = await bob.client(
            functions.channels.GetFullChannelRequest(types.InputChannel(channel.id, channel.access_hash))
        )
        channel_pts = full.full_chat.pts
        by_listener, _ = await presence.listeners_of([bob.user.id])
        assert len(by_listener) == 1

        doomed.proc.kill()  # no goodbye: its leases stay until they lapse
        doomed.proc.wait()
        started = time.monotonic()
        while (await presence.listeners_of([bob.user.id]))[0]:
            assert time.monotonic() - started < 10, "the dead listener's lease did not lapse"
            await asyncio.sleep(0.2)

        await say(alice, group, "while bob was away")
        await say(alice, private_peer(alice, bob), "private while away")

        # Bob's client reconnects through another listener and catches up.
        lost = bob.client
        await lost.disconnect()
        await bob.attach(live_client(edge_server, lost.session))
        difference = await bob.client(
            functions.updates.GetDifferenceRequest(pts=state.pts, date=state.date, qts=state.qts)
        )
        assert "private while away" in [m.message for m in difference.new_messages]
        channel_diff = await bob.client(
            functions.updates.GetChannelDifferenceRequest(
                channel=types.InputChannel(channel.id, channel.access_hash),
                filter=types.ChannelMessagesFilterEmpty(),
                pts=channel_pts,
                limit=100,
            )
        )
        assert "while bob was away" in [getattr(m, "message", None) for m in channel_diff.new_messages]
        # ... and is live again there.
        await say(alice, group, "welcome back")
        await wait_for(lambda: "welcome back" in bob.seen)
    finally:
        for p in (alice, bob):
            await p.close()
        doomed.stop()
