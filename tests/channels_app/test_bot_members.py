"""channels.bot_members follows bots joining, leaving, being kicked and returning,
whatever path changes the membership (the trigger of migration 0016), and the send
hands it to the send listeners."""

import asyncio

from asgiref.sync import sync_to_async

from accounts_app.models import User
from channels_app import actions
from channels_app.actions import admin
from channels_app.rights import banned_bit
from message_core import db, send_hooks

A, B, BOT, BOT2 = 21, 22, 23, 24


@sync_to_async
def _users() -> None:
    for uid, bot in ((A, None), (B, None), (BOT, {"info_version": 1}), (BOT2, {"info_version": 1})):
        User.objects.create(id=uid, phone=f"99920{uid}", first_name=f"u{uid}", bot=bot)


async def _count(cid: int) -> int:
    return (await db.fetchone("SELECT bot_members FROM channels WHERE id = %s", (cid,)))["bot_members"]


async def test_bot_members_follows_every_membership_change(chan):
    await _users()
    cid = (await actions.do_create_channel(A, "g", megagroup=True, invite_user_ids=[B])).channel["id"]
    assert await _count(cid) == 0
    await actions.do_invite_to_channel(A, cid, [BOT, BOT2])
    assert await _count(cid) == 2
    await admin.do_edit_banned(A, cid, BOT, banned_bit("view_messages"))  # kicked
    assert await _count(cid) == 1
    await admin.do_edit_banned(A, cid, BOT, 0)  # unbanned: left, not back
    assert await _count(cid) == 1
    await actions.do_leave_channel(BOT2, cid)
    assert await _count(cid) == 0
    await actions.do_invite_to_channel(A, cid, [BOT])  # back
    assert await _count(cid) == 1
    await actions.do_leave_channel(B, cid)  # people do not count
    assert await _count(cid) == 1


async def test_the_send_hands_its_channel_row_to_the_listeners(chan):
    await _users()
    heard = []

    async def listener(sender_id, kind, peer_id, messages, chat):
        heard.append((kind, peer_id, (chat or {}).get("bot_members")))

    send_hooks.register_listener(listener)
    try:
        cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
        await actions.do_send_message(A, cid, "no bots", random_id=1)
        await actions.do_invite_to_channel(A, cid, [BOT])
        await actions.do_send_message(A, cid, "one bot", random_id=2)
        for _ in range(50):
            if len(heard) >= 2:
                break
            await asyncio.sleep(0.02)
    finally:
        send_hooks._listeners.remove(listener)
    assert [h for h in heard if h[1] == cid] == [("channel", cid, 0), ("channel", cid, 1)]
