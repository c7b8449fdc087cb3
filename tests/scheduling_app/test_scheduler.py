"""The scheduler's guarantees: each due message sent exactly once with several workers
claiming at the same time, a message due while no worker ran sent by the next one, a
lapsed claim taken over (the send idempotent by random id), "send when online" waiting
for the peer, the per-chat cap under concurrent scheduling, and a sender who lost the
right to write having the message dropped with a notice."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from accounts_app.actions import do_create_user
from accounts_app.code_delivery import SERVICE_USER_ID
from accounts_app.models import User
from message_core import db
from scheduling_app import actions, scheduler
from tests.channels_app.test_rpc import call, iu
from tl import functions, types
from tl.errors import ScheduleTooMuchError


@pytest.fixture
async def users(chan):
    mk = sync_to_async(do_create_user)
    a = await mk("99966300001", "Alice")
    b = await mk("99966300002", "Bob")
    return a.id, b.id


def peer(viewer, uid):
    ref = iu(viewer, uid)
    return types.InputPeerUser(user_id=ref.user_id, access_hash=ref.access_hash)


async def _history(viewer, other):
    h = await call(viewer, functions.messages.GetHistory(
        peer=peer(viewer, other), offset_id=0, offset_date=0, add_offset=0, limit=100, max_id=0, min_id=0, hash=0))  # fmt: skip
    return [m.message for m in h.messages]


async def _make_due(ids=None):
    sql = "UPDATE scheduled_messages SET date = %s" + (" WHERE id = ANY(%s)" if ids else "") + " RETURNING id"
    return await db.fetchall(sql, (int(time.time()) - 1, ids) if ids else (int(time.time()) - 1,))


async def test_several_workers_send_each_message_once(users):
    a, b = users
    for i in range(30):
        await call(a, functions.messages.SendMessage(
            peer=peer(a, b), message=f"m{i}", random_id=1000 + i, schedule_date=int(time.time()) + 3600))  # fmt: skip
    await _make_due()  # all due while no worker ran
    claimed = await asyncio.gather(*(scheduler.deliver_due() for _ in range(4)))
    assert sum(claimed) == 30
    got = await _history(b, a)
    assert sorted(got) == sorted(f"m{i}" for i in range(30))  # each once
    assert await db.fetchone("SELECT count(*) AS n FROM scheduled_messages") == {"n": 0}


async def test_a_lapsed_claim_is_taken_over_without_a_second_copy(users):
    a, b = users
    res = await call(a, functions.messages.SendMessage(
        peer=peer(a, b), message="once", random_id=77, schedule_date=int(time.time()) + 3600))  # fmt: skip
    sched_id = res.updates[0].id
    await _make_due([sched_id])
    [group] = await actions.claim_due()
    # The worker sent it (with the row's random id), then died before deleting the row.
    from private_app import actions as private_actions

    await private_actions.do_send_private_message(a, b, "once", group[0]["random_id"])
    assert await actions.claim_due() == []  # still claimed by the dead worker
    await db.fetchall("UPDATE scheduled_messages SET claimed_until = now() - interval '1 s' RETURNING id")
    assert await scheduler.deliver_due() == 1
    assert await _history(b, a) == ["once"]


async def test_send_when_online_waits_for_the_peer(users):
    a, b = users
    await call(a, functions.messages.SendMessage(
        peer=peer(a, b), message="when online", random_id=5, schedule_date=actions.WHEN_ONLINE))  # fmt: skip
    await sync_to_async(User.objects.filter(id=b).update)(online_until=None)
    assert await scheduler.deliver_due() == 0
    await sync_to_async(User.objects.filter(id=b).update)(online_until=timezone.now() + timedelta(minutes=5))
    assert await scheduler.deliver_due() == 1
    assert await _history(b, a) == ["when online"]


async def test_cap_holds_under_concurrent_scheduling(users):
    a, b = users
    at = int(time.time()) + 3600
    item = lambda i: {"message": f"c{i}", "entities": [], "media": None, "random_id": 5000 + i}  # noqa: E731
    results = await asyncio.gather(
        *(
            actions.do_schedule(a, ("p", b), [item(i)], at, {})
            for i in range(actions.SCHEDULED_PER_CHAT + 10)
        ),
        return_exceptions=True,
    )
    assert sum(isinstance(r, ScheduleTooMuchError) for r in results) == 10
    row = await db.fetchone("SELECT count(*) AS n FROM scheduled_messages WHERE owner_id = %s", (a,))
    assert row["n"] == actions.SCHEDULED_PER_CHAT


async def test_forbidden_at_send_time_drops_with_a_notice(users):
    a, b = users
    chats = await call(a, functions.messages.CreateChat(users=[iu(a, b)], title="Sched"))
    ch = chats.chats[1] if hasattr(chats, "chats") else chats.updates.chats[1]
    cpeer_b = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
    await call(b, functions.messages.SendMessage(
        peer=cpeer_b, message="never", random_id=9, schedule_date=int(time.time()) + 3600))  # fmt: skip
    await call(a, functions.channels.EditBanned(
        channel=types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash), participant=peer(a, b),
        banned_rights=types.ChatBannedRights(until_date=0, send_messages=True)))  # fmt: skip
    await _make_due()
    assert await scheduler.deliver_due() == 1
    assert await db.fetchone("SELECT count(*) AS n FROM scheduled_messages") == {"n": 0}
    notice = await _history(b, SERVICE_USER_ID)
    assert any("could not be sent" in t and "CHAT_WRITE_FORBIDDEN" in t for t in notice)


async def test_a_broadcasts_posts_are_its_posting_admins_and_rights_decide_at_send_time(users):
    """Bob, an admin who may post, manages Alice's scheduled post; once he may not post
    he sees none, and his own post, still the channel's to Alice, is dropped at its
    time with a notice to him; Alice's goes out."""
    a, b = users
    made = await call(a, functions.channels.CreateChannel(title="Wire", about="", broadcast=True))
    ch = made.chats[0]
    ich = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    await call(a, functions.channels.InviteToChannel(channel=ich, users=[iu(a, b)]))
    await call(a, functions.channels.EditAdmin(
        channel=ich, user_id=iu(a, b), admin_rights=types.ChatAdminRights(post_messages=True), rank=""))  # fmt: skip
    chat = ("c", ch.id)
    at = int(time.time()) + 3600
    [row] = await actions.do_schedule(a, chat, [{"message": "p1", "random_id": 5}], at, {"post": True})
    assert await actions.scope_for(b, chat) is None  # every post of the channel
    assert sorted(await actions.audience(a, chat)) == sorted([a, b])
    assert [r["id"] for r in await actions.get_scheduled_history(await actions.scope_for(b, chat), chat)] == [
        row["id"]
    ]
    edited = await actions.do_edit_scheduled(
        None, chat, row["id"], message="p1!", entities=[], media=None, date=at
    )
    assert edited["message"] == "p1!" and edited["owner_id"] == a
    [by_b] = await actions.do_schedule(b, chat, [{"message": "p2", "random_id": 6}], at + 1, {"post": True})
    # Bob loses the right to post: the channel's scheduled posts are no longer his to see.
    await call(a, functions.channels.EditAdmin(
        channel=ich, user_id=iu(a, b), admin_rights=types.ChatAdminRights(change_info=True), rank=""))  # fmt: skip
    assert await actions.scope_for(b, chat) == b
    assert [r["id"] for r in await actions.get_scheduled_history(b, chat)] == [by_b["id"]]
    assert [r["id"] for r in await actions.get_scheduled_history(None, chat)] == [by_b["id"], row["id"]]
    assert await actions.audience(a, chat) == [a]
    # At their time: Alice's goes out as her post; Bob's is dropped, Bob told.
    await _make_due()
    assert await scheduler.deliver_due() == 2
    posts = await call(a, functions.messages.GetHistory(
        peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash), offset_id=0, offset_date=0,
        add_offset=0, limit=5, max_id=0, min_id=0, hash=0))  # fmt: skip
    assert [m.message for m in posts.messages if isinstance(m, types.Message)] == ["p1!"]
    notice = await _history(b, SERVICE_USER_ID)
    assert any("could not be sent" in t and "CHAT_ADMIN_REQUIRED" in t for t in notice)
