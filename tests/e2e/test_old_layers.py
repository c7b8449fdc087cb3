"""Clients of older layers, each in its own virtualenv: Pyrogram 2.0.106 (layer 158)
and Telethon 1.36 (layer 181). Each logs in, creates a megagroup, sends and reads
messages, lists its dialogs and pages history through its own high-level API (so every
`user`, `channel`, `message`, `messageService` and `dialog` it gets must parse in its
layer). A script prints one JSON line with what it saw; the test checks it, and that a
current Telethon client (layer 229) sees the same group and messages."""

from __future__ import annotations

import asyncio
import json

import pytest
from telethon import functions as tfn

from accounts_app.models import User
from tests.e2e import harness

PYROGRAM = "Pyrogram==2.0.106"  # layer 158
TELETHON_181 = "Telethon==1.36.0"  # layer 181

PYROGRAM_SCRIPT = r"""
import asyncio, json, sys
import pyrogram
from pyrogram import Client, raw
from pyrogram.connection import connection as pyro_connection
from pyrogram.crypto import rsa

host, port, n, e, fp, phone, code, friend = sys.argv[1:9]
rsa.server_public_keys[int(fp)] = rsa.PublicKey(int(n, 16), int(e))
pyro_connection.DataCenter = lambda *a, **k: (host, int(port))

async def main():
    app = Client("old", api_id=611335, api_hash="d524b414d21f4d37f08684c1df41ac9c", in_memory=True,
                 no_updates=True)
    await app.connect()
    sent = await app.send_code(phone)
    me = await app.sign_in(phone, sent.phone_code_hash, code)
    group = await app.create_supergroup("Layer 158 group", "made by Pyrogram 2.0.106")
    await app.add_chat_members(group.id, [friend])
    ids = []
    for i in range(25):
        m = await app.send_message(group.id, f"pyro {i}", entities=None)
        ids.append(m.id)
    reply = await app.send_message(group.id, "a **bold** reply", reply_to_message_id=ids[0])
    fwd = await app.forward_messages(group.id, group.id, ids[1])
    history = [m async for m in app.get_chat_history(group.id, limit=40)]
    page = [m async for m in app.get_chat_history(group.id, limit=10, offset_id=ids[20])]
    dialogs = [d async for d in app.get_dialogs()]
    chat = await app.get_chat(group.id)
    print(json.dumps({
        "layer": raw.all.layer,
        "me": me.id,
        "group": group.id,
        "group_type": str(group.type),
        "members": chat.members_count,
        "texts": [m.text for m in history if m.text],
        "service": [str(m.service) for m in history if m.service],
        "reply_to": reply.reply_to_message_id,
        "reply_bold": [str(x.type) for x in (reply.entities or [])],
        "forwarded_from": fwd[0].forward_from.id if isinstance(fwd, list) else fwd.forward_from.id,
        "page": [m.text for m in page],
        "dialogs": [[d.chat.id, d.chat.title, d.top_message.text if d.top_message else None] for d in dialogs],
    }), flush=True)
    await app.disconnect()

asyncio.run(main())
"""

TELETHON_SCRIPT = r"""
import asyncio, json, sys
from telethon import TelegramClient, functions, types
from telethon.crypto import rsa
from telethon.sessions import MemorySession
from telethon.tl.alltlobjects import LAYER

host, port, pem, phone, code, friend = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read(), *sys.argv[4:7]
rsa.add_key(pem, old=False)

async def main():
    session = MemorySession()
    session.set_dc(2, host, port)
    client = TelegramClient(session, 611335, "d524b414d21f4d37f08684c1df41ac9c", connection_retries=1,
                            auto_reconnect=False, receive_updates=False)
    await client.start(phone=phone, code_callback=lambda: code)
    me = await client.get_me()
    created = await client(functions.channels.CreateChannelRequest(
        title="Layer 181 group", about="made by Telethon 1.36", megagroup=True))
    channel = created.chats[0]
    friend_user = await client.get_input_entity(friend)
    await client(functions.channels.InviteToChannelRequest(channel, [friend_user]))
    sent = [await client.send_message(channel, f"tl {i}") for i in range(25)]
    reply = await client.send_message(channel, "a **bold** reply", reply_to=sent[0].id)
    fwd = await client.forward_messages(channel, sent[1].id, channel)
    history = await client.get_messages(channel, limit=40)
    page = await client.get_messages(channel, limit=10, offset_id=sent[20].id)
    dialogs = await client.get_dialogs()
    full = await client(functions.channels.GetFullChannelRequest(channel))
    # Layers before 190 ask for sponsored messages with the channels.* methods.
    sponsored = [
        type(await client(functions.channels.GetSponsoredMessagesRequest(channel))).__name__,
        await client(functions.channels.ViewSponsoredMessageRequest(channel, b"ad")),
        await client(functions.channels.ClickSponsoredMessageRequest(channel, b"ad")),
        type(await client(functions.channels.ReportSponsoredMessageRequest(channel, b"ad", b""))).__name__,
    ]
    print(json.dumps({
        "layer": LAYER,
        "me": me.id,
        "channel": channel.id,
        "megagroup": channel.megagroup,
        "members": full.full_chat.participants_count,
        "texts": [m.message for m in history if isinstance(m, types.Message) and m.message],
        "service": [type(m.action).__name__ for m in history if isinstance(m, types.MessageService)],
        "reply_to": reply.reply_to.reply_to_msg_id,
        "reply_bold": [type(x).__name__ for x in (reply.entities or [])],
        "forwarded_from": fwd.fwd_from.from_id.user_id,
        "page": [m.message for m in page],
        "dialogs": [[d.id, d.name, d.message.message if d.message else None] for d in dialogs],
        "sponsored": sponsored,
    }), flush=True)
    await client.disconnect()

asyncio.run(main())
"""


@pytest.fixture(scope="session")
def pyrogram_python():
    from tests.support.client_venvs import client_python

    return client_python(PYROGRAM)


@pytest.fixture(scope="session")
def telethon_181_python():
    from tests.support.client_venvs import client_python

    return client_python(TELETHON_181)


async def _run(python, script: str, args: list[str], tmp_path) -> dict:
    path = tmp_path / "client.py"
    path.write_text(script)
    proc = await asyncio.create_subprocess_exec(
        str(python),
        str(path),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=tmp_path,  # Pyrogram writes unknown_errors.txt where it runs
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    lines = [x for x in out.decode().splitlines() if x.startswith("{")]
    assert proc.returncode == 0 and lines, err.decode()[-4000:]
    return json.loads(lines[-1])


async def _friend(telethon_user):
    """A layer-229 Telethon user with a username (how the old client finds them)."""
    client, me, phone = await telethon_user("Friend")
    me.username = f"friend{phone[-7:]}"
    await client(tfn.account.UpdateUsernameRequest(me.username))
    return client, me


async def _friend_sees(client, title: str, texts: list[str]):
    dialogs = await client.get_dialogs()
    group = next(d for d in dialogs if d.name == title)
    got = [m.message for m in await client.get_messages(group.entity, limit=40) if m.message]
    for t in texts:
        assert t in got
    return group


async def test_pyrogram_2_0_106_layer_158(edge_server, edge_db, telethon_user, pyrogram_python, tmp_path):
    from mtproto import crypto

    friend, friend_me = await _friend(telethon_user)
    phone, code = harness.fresh_phone()
    await User.objects.acreate(phone=phone, first_name="Pyro")
    key = crypto.RsaKey.load(edge_server.rsa_key_path)
    fp = key.fingerprint - 2**64 if key.fingerprint >= 2**63 else key.fingerprint
    args = [
        edge_server.host,
        str(edge_server.port),
        f"{key.n:x}",
        str(key.e),
        str(fp),
        phone,
        code,
        friend_me.username,
    ]
    seen = await _run(pyrogram_python, PYROGRAM_SCRIPT, args, tmp_path)

    assert seen["layer"] == 158
    assert seen["group_type"] == "ChatType.SUPERGROUP" and seen["members"] == 2
    assert {"pyro 0", "pyro 24", "a bold reply"} <= set(seen["texts"])
    assert seen["reply_bold"] == ["MessageEntityType.BOLD"]
    assert seen["page"] == [f"pyro {i}" for i in range(19, 9, -1)]
    assert seen["reply_to"] is not None
    assert seen["forwarded_from"] == seen["me"]
    assert any("CHANNEL_CHAT_CREATE" in s or "True" in s for s in seen["service"])
    assert any(d[0] == seen["group"] and d[1] == "Layer 158 group" for d in seen["dialogs"])
    # A layer-229 client in the same group sees what the layer-158 one sent.
    await _friend_sees(friend, "Layer 158 group", ["pyro 0", "pyro 24"])


async def test_telethon_1_36_layer_181(edge_server, edge_db, telethon_user, telethon_181_python, tmp_path):
    friend, friend_me = await _friend(telethon_user)
    phone, code = harness.fresh_phone()
    await User.objects.acreate(phone=phone, first_name="Tele")
    pem = tmp_path / "server.pub"
    pem.write_bytes(edge_server.public_pem)
    args = [edge_server.host, str(edge_server.port), str(pem), phone, code, friend_me.username]
    seen = await _run(telethon_181_python, TELETHON_SCRIPT, args, tmp_path)

    assert seen["layer"] == 181
    assert seen["megagroup"] is True and seen["members"] == 2
    assert {"tl 0", "tl 24", "a bold reply"} <= set(seen["texts"])
    assert seen["reply_bold"] == ["MessageEntityBold"]
    assert seen["page"] == [f"tl {i}" for i in range(19, 9, -1)]
    assert seen["reply_to"] is not None
    assert seen["forwarded_from"] == seen["me"]
    assert "MessageActionChannelCreate" in seen["service"]
    assert seen["sponsored"] == ["SponsoredMessagesEmpty", True, True, "SponsoredMessageReportResultReported"]
    assert any(d[1] == "Layer 181 group" and d[2] for d in seen["dialogs"])
    group = await _friend_sees(friend, "Layer 181 group", ["tl 0", "tl 24"])
    await friend(tfn.messages.SendMessageRequest(group.input_entity, "hi from 229", random_id=77))
