"""Supergroups and channels with unmodified clients against the real listener: create,
invite, live messages / replies / forwards / edits / deletes / read marks, offline
catch-up through getChannelDifference, broadcast posting rules, access hashes."""

from __future__ import annotations

import asyncio

import pytest

from accounts_app.access import user_access_hash
from accounts_app.models import User
from tests.e2e import harness

pytestmark = pytest.mark.django_db(transaction=True)


def make_live_telethon(server):
    """Telethon 1.45 that processes updates (the harness default does not)."""
    from telethon import TelegramClient, connection
    from telethon.sessions import MemorySession

    harness.telethon_trust(server.public_pem)
    session = MemorySession()
    session.set_dc(2, server.host, server.port)
    return TelegramClient(
        session, harness.API_ID, harness.API_HASH, connection=connection.ConnectionTcpAbridged,
        receive_updates=True, connection_retries=1, retry_delay=0, timeout=10, request_retries=1,
        auto_reconnect=False, catch_up=False,
    )  # fmt: skip


async def new_user(first_name: str):
    phone, code = harness.fresh_phone()
    user = await User.objects.acreate(phone=phone, first_name=first_name)
    return user, phone, code


async def logged_in(server, first_name: str, clients: list):
    user, phone, code = await new_user(first_name)
    return user, await second_session(server, phone, code, clients), phone, code


async def second_session(server, phone: str, code: str, clients: list):
    """A Telethon client logged in to ``phone``'s account (another device of it)."""
    client = make_live_telethon(server)
    clients.append(client)
    await client.connect()
    sent = await client.send_code_request(phone)
    await client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    return client


def input_user(viewer, target):
    from telethon import types

    return types.InputUser(user_id=target.id, access_hash=user_access_hash(viewer.id, target.id))


def collect(into: list, attr: str | None = None):
    """An async event handler appending the event (or one of its attributes)."""

    async def handler(event):
        into.append(getattr(event, attr) if attr else event)

    return handler


async def wait_for(predicate, timeout: float = 10.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.05)


async def test_megagroup_live_messages_replies_edits_deletes_reads(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)

    created = await a(functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title="Team"))
    legacy, channel = created.updates.chats[0], created.updates.chats[1]
    assert isinstance(legacy, types.Chat) and legacy.migrated_to.channel_id == channel.id
    assert channel.megagroup and channel.creator

    got_b, edits_b, deletes_b = [], [], []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage())
    b.add_event_handler(collect(edits_b, "message"), events.MessageEdited())
    b.add_event_handler(collect(deletes_b, "deleted_ids"), events.MessageDeleted())
    await b.get_dialogs()  # B learns the channel (and its pts) like a client opening the app

    group_a = await a.get_input_entity(types.PeerChannel(channel.id))
    first = await a.send_message(group_a, "hello from Alice")
    await wait_for(lambda: any(m.message == "hello from Alice" for m in got_b))
    live = next(m for m in got_b if m.message == "hello from Alice")
    assert not live.out and live.sender_id == alice.id

    group_b = await b.get_input_entity(types.PeerChannel(channel.id))
    reply = await b.send_message(group_b, "hi Alice", reply_to=first.id)
    assert reply.reply_to.reply_to_msg_id == first.id

    # A forward keeps its origin, and the header's peer comes with the update.
    got_a: list = []
    a.add_event_handler(collect(got_a, "message"), events.NewMessage())
    fwd = await b.forward_messages(group_b, first.id, group_b)
    assert fwd.fwd_from.from_id.user_id == alice.id
    await wait_for(lambda: any(m.fwd_from is not None for m in got_a))
    live_fwd = next(m for m in got_a if m.fwd_from is not None)
    assert live_fwd.fwd_from.from_id.user_id == alice.id and live_fwd.sender_id == bob.id
    typing = []
    a.add_event_handler(collect(typing), events.UserUpdate())
    await b(functions.messages.SetTypingRequest(group_b, types.SendMessageTypingAction()))
    await wait_for(lambda: any(getattr(e, "typing", False) for e in typing))

    await a.edit_message(group_a, first, "hello (edited)")
    await wait_for(lambda: any(m.message == "hello (edited)" for m in edits_b))

    await a.delete_messages(group_a, [first.id])
    await wait_for(lambda: any(first.id in ids for ids in deletes_b))

    # B's dialog shows the unread count; reading it clears it and A's outbox mark moves.
    await a.send_message(group_a, "one more")
    dialogs = await b.get_dialogs()
    d = next(
        d for d in dialogs if d.id == -1000000000000 - channel.id or getattr(d.entity, "id", 0) == channel.id
    )
    assert d.unread_count >= 1
    await b.send_read_acknowledge(group_b)
    full = await a(functions.channels.GetFullChannelRequest(group_a))
    assert full.full_chat.read_outbox_max_id >= reply.id

    # Telethon's own helpers over the channel methods.
    participants = await a.get_participants(group_a)
    assert sorted(p.id for p in participants) == sorted([alice.id, bob.id])
    recent = [m async for m in a.iter_messages(group_a, limit=3)]
    assert recent[0].message == "one more" and len(recent) == 3
    entity = await b.get_entity(types.PeerChannel(channel.id))
    assert entity.title == "Team" and entity.megagroup and not entity.creator

    # The same channel id with a wrong access hash is refused on every method.
    from telethon.errors import ChannelPrivateError

    wrong = types.InputChannel(channel.id, channel.access_hash ^ 0x5555)
    for req in (
        functions.channels.GetFullChannelRequest(wrong),
        functions.channels.GetParticipantsRequest(wrong, types.ChannelParticipantsRecent(), 0, 10, 0),
        functions.updates.GetChannelDifferenceRequest(wrong, types.ChannelMessagesFilterEmpty(), 1, 10),
        functions.messages.GetHistoryRequest(
            types.InputPeerChannel(channel.id, channel.access_hash ^ 0x5555), 0, 0, 0, 10, 0, 0, 0
        ),
    ):
        with pytest.raises(ChannelPrivateError):
            await b(req)


async def test_offline_member_catches_up_through_channel_difference(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    created = await a(
        functions.messages.CreateChatRequest(users=[input_user(alice, carol)], title="Catch-up")
    )
    channel = created.updates.chats[1]
    ic_c = types.InputChannel(channel.id, channel.access_hash)
    d0 = await c(
        functions.updates.GetChannelDifferenceRequest(
            ic_c, types.ChannelMessagesFilterEmpty(), channel_pts := 1, 100
        )
    )
    assert isinstance(d0, types.updates.ChannelDifferenceEmpty)

    group_a = types.InputPeerChannel(channel.id, channel.access_hash)
    for i in range(150):
        await a(functions.messages.SendMessageRequest(group_a, f"m{i}", random_id=10_000 + i))
    await a.edit_message(group_a, 5, "m3 edited")
    await a.delete_messages(group_a, [6, 7])

    # 150+ behind with limit 100: tooLong, with the dialog at the current pts.
    d = await c(
        functions.updates.GetChannelDifferenceRequest(
            ic_c, types.ChannelMessagesFilterEmpty(), channel_pts, 100
        )
    )
    assert isinstance(d, types.updates.ChannelDifferenceTooLong)
    assert d.dialog.pts == 1 + 150 + 1 + 2
    assert len(d.messages) == 100 and d.messages[0].message == "m149"
    # A client that is less behind pages through the log with no gap.
    pts, seen, edited, deleted = 60, {}, {}, set()
    while True:
        d = await c(
            functions.updates.GetChannelDifferenceRequest(ic_c, types.ChannelMessagesFilterEmpty(), pts, 100)
        )
        if isinstance(d, types.updates.ChannelDifferenceEmpty):
            break
        for m in d.new_messages:
            seen[m.id] = m.message
        for u in d.other_updates:
            if isinstance(u, types.UpdateEditChannelMessage):
                edited[u.message.id] = u.message.message
            elif isinstance(u, types.UpdateDeleteChannelMessages):
                deleted.update(u.messages)
        pts = d.pts
        if d.final:
            break
    assert pts == 154
    assert sorted(seen) == list(range(61, 152))  # pts > 60: ids 61..151 = m59..m149
    assert deleted == {6, 7} and edited == {5: "m3 edited"}
    # history agrees with the log
    hist = await c(
        functions.messages.GetHistoryRequest(
            types.InputPeerChannel(channel.id, channel.access_hash), 0, 0, 0, 100, 0, 0, 0
        )
    )
    assert hist.messages[0].message == "m149" and all(m.id not in (6, 7) for m in hist.messages)


async def test_broadcast_channel_posting_rules(edge_server, edge_db, clients):
    from telethon import events, functions, types
    from telethon.errors import ChatAdminRequiredError

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    res = await a(functions.channels.CreateChannelRequest(title="News", about="daily", broadcast=True))
    channel = next(ch for ch in res.chats if isinstance(ch, types.Channel))
    ic = types.InputChannel(channel.id, channel.access_hash)
    await a(functions.channels.InviteToChannelRequest(ic, [input_user(alice, bob)]))
    posts = []
    b.add_event_handler(collect(posts, "message"), events.NewMessage())
    await b.get_dialogs()
    await a.send_message(types.InputPeerChannel(channel.id, channel.access_hash), "first post")
    await wait_for(lambda: any(p.message == "first post" for p in posts))
    assert posts[-1].post
    with pytest.raises(ChatAdminRequiredError):
        await b.send_message(types.InputPeerChannel(channel.id, channel.access_hash), "subscriber")


def make_live_kurigram(server, name: str):
    """Kurigram 2.2.26 with updates on (the harness default has them off)."""
    from pyrogram import Client
    from pyrogram.connection import Connection
    from pyrogram.connection.transport import TCPAbridged

    harness.kurigram_trust(server)
    host, port = server.host, server.port

    class LocalConnection(Connection):
        def __init__(self, **kw):
            kw["server_address"], kw["port"] = host, port
            super().__init__(**kw)

    return Client(
        name, api_id=harness.API_ID, api_hash=harness.API_HASH, in_memory=True,
        connection_factory=LocalConnection, protocol_factory=TCPAbridged,
    )  # fmt: skip


# Telethon 1.43.2 (layer 224) in its own venv: follows a line protocol on stdin/stdout.
OLD_TELETHON_MEMBER = r"""
import asyncio, json, sys
from telethon import TelegramClient, events, functions, types
from telethon.crypto import rsa
from telethon.sessions import MemorySession

host, port, pem, phone, code = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read(), sys.argv[4], sys.argv[5]
rsa.add_key(pem, old=False)

def say(**kw):
    print(json.dumps(kw), flush=True)

async def line():
    return (await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)).strip()

async def main():
    session = MemorySession()
    session.set_dc(2, host, port)
    client = TelegramClient(session, 611335, "d524b414d21f4d37f08684c1df41ac9c", connection_retries=1,
                            auto_reconnect=False, catch_up=False)
    live = asyncio.Queue()
    client.add_event_handler(lambda e: live.put_nowait(e.message), events.NewMessage())
    await client.start(phone=phone, code_callback=lambda: code)
    await client.get_dialogs()
    say(ready=True)
    msg = await asyncio.wait_for(live.get(), 20)
    while "from Alice" not in msg.message:
        msg = await asyncio.wait_for(live.get(), 20)
    channel = await client.get_input_entity(msg.peer_id)
    sent = await client.send_message(channel, "C here", reply_to=msg.id)
    say(live=msg.message, out=msg.out, sent=sent.id)
    await client.disconnect()
    say(offline=True)
    await line()  # the test sent 150 messages meanwhile
    await client.connect()
    await client.catch_up()
    hist = await client.get_messages(channel, limit=200)
    say(history=[[m.id, m.message or ""] for m in hist if isinstance(m, types.Message)])
    await client.disconnect()

asyncio.run(main())
"""


async def test_three_clients_telethon_kurigram_and_layer_224(
    edge_server, edge_db, clients, old_telethon_python, tmp_path
):
    import json
    import subprocess

    from pyrogram import filters
    from pyrogram.handlers import MessageHandler
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b_phone, b_code = await new_user("Bob")
    carol, c_phone, c_code = await new_user("Carol")

    bob_client = make_live_kurigram(edge_server, "bob")
    await bob_client.connect()
    sent_code = await bob_client.send_code(b_phone)
    await bob_client.sign_in(b_phone, sent_code.phone_code_hash, b_code)
    bob_seen: list = []
    bob_client.add_handler(MessageHandler(lambda _c, m: bob_seen.append(m), filters.all))
    await bob_client.initialize()

    pem = tmp_path / "server.pub"
    pem.write_bytes(edge_server.public_pem)
    script = tmp_path / "old_member.py"
    script.write_text(OLD_TELETHON_MEMBER)
    carol_proc = await asyncio.create_subprocess_exec(
        str(old_telethon_python), str(script), edge_server.host, str(edge_server.port), str(pem), c_phone, c_code,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip

    async def carol_says():
        while True:  # Telethon's start() prints its own lines too
            raw = await asyncio.wait_for(carol_proc.stdout.readline(), 60)
            if not raw:
                err = await carol_proc.stderr.read()
                raise AssertionError(err.decode()[-3000:])
            if raw.startswith(b"{"):
                return json.loads(raw)

    try:
        created = await a(
            functions.messages.CreateChatRequest(
                users=[input_user(alice, bob), input_user(alice, carol)], title="Three"
            )
        )
        channel = created.updates.chats[1]
        assert (await carol_says()) == {"ready": True}
        alice_seen = []
        a.add_event_handler(collect(alice_seen, "message"), events.NewMessage())
        await a.get_dialogs()
        group = types.InputPeerChannel(channel.id, channel.access_hash)
        first = await a.send_message(group, "hello from Alice")

        said = await carol_says()  # layer 224 got it live and replied
        assert said["live"] == "hello from Alice" and said["out"] is False
        await wait_for(lambda: any(m.text == "hello from Alice" for m in bob_seen))
        await wait_for(lambda: any(m.message == "C here" for m in alice_seen))
        c_reply = next(m for m in alice_seen if m.message == "C here")
        assert c_reply.reply_to.reply_to_msg_id == first.id and c_reply.sender_id == carol.id
        await wait_for(lambda: any(m.text == "C here" for m in bob_seen))
        # Kurigram's own dialog list, chat info, history and members all resolve the group.
        dialogs = [d async for d in bob_client.get_dialogs()]
        assert any(d.chat.id == -1000000000000 - channel.id and d.chat.title == "Three" for d in dialogs)
        chat = await bob_client.get_chat(-1000000000000 - channel.id)
        assert chat.members_count == 3
        texts = [m.text async for m in bob_client.get_chat_history(-1000000000000 - channel.id, limit=10)]
        assert texts[:2] == ["C here", "hello from Alice"]
        members = [m.user.id async for m in bob_client.get_chat_members(-1000000000000 - channel.id)]
        assert sorted(members) == sorted([alice.id, bob.id, carol.id])
        from_kurigram = await bob_client.send_message(
            channel_id := -1000000000000 - channel.id, "Bob via Kurigram"
        )
        assert from_kurigram.text == "Bob via Kurigram" and channel_id
        await wait_for(lambda: any(m.message == "Bob via Kurigram" for m in alice_seen))

        assert (await carol_says()) == {"offline": True}
        for i in range(150):
            await a(functions.messages.SendMessageRequest(group, f"m{i}", random_id=50_000 + i))
        await a.edit_message(group, said["sent"] + 3, "m1 edited")
        await a.delete_messages(group, [said["sent"] + 4])
        carol_proc.stdin.write(b"reconnect\n")
        await carol_proc.stdin.drain()
        history = dict((await carol_says())["history"])
        base = said["sent"] + 2  # m0's id
        assert history[base + 1] == "m1 edited"
        assert base + 2 not in history
        assert history[base + 149] == "m149" and len([i for i in history if i >= base]) == 149
    finally:
        if carol_proc.returncode is None:
            carol_proc.kill()
            await carol_proc.wait()
        await bob_client.stop() if bob_client.is_initialized else await bob_client.disconnect()
