"""Live fan-out on one edge: every online member gets a channel event, however many
there are against the per-query cap; typing reaches a bounded few."""

from __future__ import annotations

from channels_app import actions, push
from message_core import limits
from tests.edge_app.test_push import FakeEdge, FakeSession
from tl import types

OWNER = 31
MEMBERS = list(range(32, 39))  # 7 more, against a cap of 2 per query


async def test_every_online_member_gets_the_event_past_the_query_cap(chan, monkeypatch):
    monkeypatch.setattr(limits, "REALTIME_FANOUT_MAX", 2)
    monkeypatch.setattr(limits, "TYPING_FANOUT_MAX", 2)
    monkeypatch.setattr(push, "_members_cache", {})
    g = (await actions.do_create_channel(OWNER, "crowd", megagroup=True, invite_user_ids=MEMBERS)).channel
    sessions = {u: FakeSession(u, 1000 + u, 1) for u in [OWNER, *MEMBERS]}
    sessions[999] = FakeSession(999, 1999, 1)  # online, not a member
    edge = FakeEdge(list(sessions.values()))

    # Typing first: the members it looks up must not cut down the event's audience.
    typing = types.SendMessageTypingAction().to_bytes().hex()
    await push._on_typing({"channel_id": g["id"], "user_id": OWNER, "action": typing}, edge)
    heard = [u for u, s in sessions.items() if s.pushed]
    assert len(heard) == 2 and OWNER not in heard

    for s in sessions.values():
        s.pushed.clear()
    (ev,) = (await actions.do_send_message(OWNER, g["id"], "all of you", random_id=1)).events
    await push._render_and_push({"event": ev.to_payload(), "exclude": None}, edge)
    got = {u for u, s in sessions.items() if s.pushed}
    assert got == {OWNER, *MEMBERS}
    (update,) = sessions[MEMBERS[-1]].pushed[0].updates
    assert update.message.message == "all of you" and not update.message.out
    assert sessions[OWNER].pushed[0].updates[0].message.out
