"""The console's group calls page: live calls with their participants, and the
operator's "end call" going through the domain (the chat's flags go, history keeps the
"ended" message, members are told)."""

from django.db import connection

from calls_app import group_actions
from calls_app.models import GroupCall, GroupCallParticipant
from channels_app import actions
from message_core.clock import now

from .conftest import run
from .test_moderation import act

CREATOR, ALICE = 911, 912


def test_live_calls_listed_and_ended_by_the_operator(operator_client, console):
    cid = run(actions.do_create_channel, CREATOR, "Radio", megagroup=True).channel["id"]
    run(actions.do_invite_to_channel, CREATOR, cid, [ALICE])
    call = run(group_actions.do_create_group_call, CREATOR, cid, None, 1, title="Morning show").call
    GroupCallParticipant.objects.create(
        call_id=call["id"], user_id=ALICE, peer_id=ALICE, source=4242, muted=True, date=now(), alive_at=now()
    )
    page = operator_client.get("/admin/calls_app/groupcall/", {"live": "yes"}).content.decode()
    assert "Morning show" in page and str(cid) in page
    detail = operator_client.get(f"/admin/calls_app/groupcall/{call['id']}/change/").content.decode()
    assert "4242" in detail and str(ALICE) in detail

    console.clear()
    response = act(operator_client, "/admin/calls_app/groupcall/", "end_calls", [str(call["id"])])
    assert "Ended 1 call(s)." in response.content.decode()
    ended = GroupCall.objects.get(id=call["id"])
    assert ended.state == "discarded" and not ended.participants.exists()
    with connection.cursor() as cur:
        cur.execute("SELECT call_id FROM channels WHERE id = %s", [cid])
        assert cur.fetchone()[0] == 0
        cur.execute(
            "SELECT action FROM channel_messages WHERE channel_id = %s ORDER BY id DESC LIMIT 1", [cid]
        )
        action = cur.fetchone()[0]
    action = action if isinstance(action, dict) else __import__("json").loads(action)
    assert action["_"] == "groupCall" and action["call_id"] == call["id"] and "duration" in action
    assert any(kind == "channel.event" for kind, _ in console)
    # Ended calls leave the live list; ending one twice is refused by the domain.
    assert (
        "Morning show"
        not in operator_client.get("/admin/calls_app/groupcall/", {"live": "yes"}).content.decode()
    )
