"""Group-call rules below the handlers: who may change what on a participant, the join
JSON a node needs, join-muted and the node being asked before anything is written, the
participant pages a client loops over, and the liveness job. The SFU and the chat's
side are replaced by recorders here; tests/e2e/test_group_calls.py drives the real ones."""

from __future__ import annotations

import json
import secrets

import pytest

from calls_app import group_actions, group_liveness, sfu
from calls_app.models import GroupCall, GroupCallParticipant
from message_core.clock import now
from tl.errors import (
    ChatAdminRequiredError,
    DataJsonInvalidError,
    GroupcallAddParticipantsFailedError,
    GroupcallForbiddenError,
    GroupcallSsrcDuplicateMuchError,
    UserVolumeInvalidError,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _p(**kw) -> dict:
    base = {
        "user_id": 7, "peer_kind": "user", "peer_id": 7, "source": 100, "presentation_source": 0, "muted": False,
        "can_self_unmute": True, "volume": 10000, "volume_by_admin": False, "raise_hand_rating": 0,
        "video": None, "presentation": None, "params": {}, "date": 1, "active_date": 1,
    }  # fmt: skip
    return {**base, **kw}


def test_edit_rules_self_and_others():
    e = group_actions.Edit
    # Muted by an admin: one cannot unmute oneself, but may raise a hand.
    held = _p(muted=True, can_self_unmute=False)
    with pytest.raises(GroupcallForbiddenError):
        group_actions.plan_edit(held, e(muted=False), self_=True, admin=False, at_ms=5)
    assert group_actions.plan_edit(held, e(raise_hand=True), self_=True, admin=False, at_ms=5) == {
        "raise_hand_rating": 5
    }
    # Others: only admins mute; "unmute" lets them speak and lowers the hand.
    with pytest.raises(ChatAdminRequiredError):
        group_actions.plan_edit(_p(), e(muted=True), self_=False, admin=False, at_ms=5)
    assert group_actions.plan_edit(_p(), e(muted=True), self_=False, admin=True, at_ms=5) == {
        "muted": True,
        "can_self_unmute": False,
    }
    allowed = group_actions.plan_edit(
        _p(muted=True, can_self_unmute=False, raise_hand_rating=9),
        e(muted=False),
        self_=False,
        admin=True,
        at_ms=5,
    )
    assert allowed == {"can_self_unmute": True, "raise_hand_rating": 0}
    # Raising someone else's hand is no one's; an admin may lower it.
    with pytest.raises(ChatAdminRequiredError):
        group_actions.plan_edit(_p(), e(raise_hand=True), self_=False, admin=True, at_ms=5)
    # Volume: 1..20000; an admin's applies to everyone, a member's to nobody else.
    with pytest.raises(UserVolumeInvalidError):
        group_actions.plan_edit(_p(), e(volume=0), self_=True, admin=False, at_ms=5)
    assert group_actions.plan_edit(_p(), e(volume=5000), self_=False, admin=True, at_ms=5) == {
        "volume": 5000,
        "volume_by_admin": True,
    }
    assert group_actions.plan_edit(_p(), e(volume=5000), self_=False, admin=False, at_ms=5) == {}
    # Video is one's own.
    with pytest.raises(ChatAdminRequiredError):
        group_actions.plan_edit(_p(), e(video_stopped=True), self_=False, admin=True, at_ms=5)


def test_join_json_checked_and_sources_signed():
    good = {
        "ufrag": "u",
        "pwd": "p",
        "fingerprints": [{"hash": "sha-256", "fingerprint": "AA"}],
        "ssrc": 2**32 - 1,
    }
    source, groups = group_actions.clean_params(
        {**good, "ssrc-groups": [{"semantics": "FID", "sources": [3, 4]}]}
    )
    assert source == -1 and groups == [{"semantics": "FID", "sources": [3, 4]}]
    for bad in (
        {**good, "ssrc": 0},
        {**good, "pwd": ""},
        {**good, "fingerprints": []},
        {**good, "ssrc": "1"},
    ):
        with pytest.raises(DataJsonInvalidError):
            group_actions.clean_params(bad)


def _call(**kw) -> GroupCall:
    fields = {"id": secrets.randbits(62) + 1, "access_hash": 5, "channel_id": secrets.randbits(40) + 1,
              "creator_id": 1, "date": now(), "start_date": now()}  # fmt: skip
    return GroupCall.objects.create(**{**fields, **kw})


def _join_row(call: GroupCall, user_id: int, **kw) -> GroupCallParticipant:
    fields = {"user_id": user_id, "peer_id": user_id, "source": user_id, "date": now(), "alive_at": now()}
    return GroupCallParticipant.objects.create(call=call, **{**fields, **kw})


def test_participant_pages_end_with_an_empty_offset():
    call = _call()
    for u in range(1, 251):
        _join_row(call, u)
    seen, offset, pages = [], "", 0
    while True:
        count, rows, offset = group_actions.participants_page.__wrapped__(call.id, offset=offset, limit=0)
        seen += [r["user_id"] for r in rows]
        pages += 1
        if not offset:
            break
    assert count == 250 and seen == list(range(1, 251)) and pages == 3
    # Exactly a page's worth: the last page still says "no more".
    _, rows, offset = group_actions.participants_page.__wrapped__(call.id, limit=250)
    assert len(rows) == 250 and offset == ""
    _, rows, _ = group_actions.participants_page.__wrapped__(call.id, sources=[7, 9], peers=[("user", 11)])
    assert [r["user_id"] for r in rows] == [7, 9, 11]


class _Node:
    def __init__(self, fail: bool = False):
        self.fail, self.joined, self.left, self.muted = fail, [], [], []

    def install(self, monkeypatch):
        async def join(node, call_id, source, params, *, muted, video, presentation=False):
            if self.fail:
                raise sfu.SfuUnavailable("down")
            self.joined.append((source, muted))
            return {"transport": {"ufrag": "x", "pwd": "y", "fingerprints": [], "candidates": []}}

        async def leave(node, call_id, source):
            self.left.append(source)

        async def set_muted(node, call_id, source, muted):
            self.muted.append((source, muted))

        monkeypatch.setattr(sfu, "join", join)
        monkeypatch.setattr(sfu, "leave", leave)
        monkeypatch.setattr(sfu, "set_muted", set_muted)
        monkeypatch.setattr(sfu, "node_for_call", lambda call_id: "n1")


@pytest.fixture
def chat(monkeypatch):
    """The call's chat: members 1 (admin with manage_call) and 2, 3 (members)."""
    states: list = []
    members = {
        1: {"status": "active", "role": "creator", "admin_rights": 0},
        2: {"status": "active", "role": "member", "admin_rights": 0},
        3: {"status": "active", "role": "member", "admin_rights": 0},
    }

    async def call_for(user_id, call_id, access_hash):
        call = await group_actions._load_call(call_id, access_hash)
        return call, {"call_not_empty": False}, members.get(user_id)

    async def set_state(channel_id, sender, columns, action=None):
        states.append((columns, action))

    monkeypatch.setattr(group_actions, "call_for", call_for)
    monkeypatch.setattr(group_actions, "do_set_call_state", set_state)
    return states


def _params(ssrc: int) -> dict:
    return json.loads(
        json.dumps(
            {
                "ufrag": "u",
                "pwd": "p",
                "fingerprints": [{"hash": "sha-256", "fingerprint": "AA"}],
                "ssrc": ssrc,
            }
        )
    )


async def _join(call, user_id, ssrc, **kw):
    return await group_actions.do_join_group_call(
        user_id, 0, call.id, call.access_hash, ("user", user_id), _params(ssrc),
        muted=kw.get("muted", False), video_stopped=True,
    )  # fmt: skip


async def test_join_muted_node_first_and_admin_mute(chat, monkeypatch):
    from asgiref.sync import sync_to_async

    node = _Node()
    node.install(monkeypatch)
    call = await sync_to_async(_call)(join_muted=True)
    admin = await _join(call, 1, 10)
    member = await _join(call, 2, 20)
    assert admin.participants[-1]["can_self_unmute"] and not admin.participants[-1]["muted"]
    assert member.participants[-1]["muted"] and not member.participants[-1]["can_self_unmute"]
    assert node.joined == [(10, False), (20, True)]
    assert member.call["version"] > admin.call["version"] and member.call["participants_count"] == 2
    assert member.connection["transport"]["ufrag"] == "x"
    with pytest.raises(GroupcallSsrcDuplicateMuchError):
        await _join(call, 3, 20)
    # The node refusing changes nothing.
    node.fail = True
    with pytest.raises(GroupcallAddParticipantsFailedError):
        await _join(call, 3, 30)
    assert not await GroupCallParticipant.objects.filter(call_id=call.id, user_id=3).aexists()
    node.fail = False
    # An admin lets 2 speak (no forced mute on the node any more), then mutes 2 again.
    await group_actions.do_edit_group_call_participant(
        1, call.id, 5, ("user", 2), group_actions.Edit(muted=False)
    )
    await group_actions.do_edit_group_call_participant(
        1, call.id, 5, ("user", 2), group_actions.Edit(muted=True)
    )
    assert node.muted == [(20, False), (20, True)]
    with pytest.raises(ChatAdminRequiredError):
        await group_actions.do_edit_group_call_participant(
            2, call.id, 5, ("user", 1), group_actions.Edit(muted=True)
        )
    # Rejoining (a reconnect) replaces the old source on the node.
    again = await _join(call, 2, 21)
    assert 20 in node.left and [p["left"] for p in again.participants] == [True, False]
    assert chat[0] == ({"call_not_empty": True}, None)


async def test_liveness_drops_the_gone_and_keeps_the_online(chat, monkeypatch):
    from asgiref.sync import sync_to_async

    from edge_app import presence

    _Node().install(monkeypatch)
    # Judged as of a moment ahead, so that the rows are fresh to any listener's own job
    # running meanwhile on the same database (an e2e server of this session).
    ahead = now() + group_actions.LIVENESS_SECONDS + 5
    call = await sync_to_async(_call)()
    await sync_to_async(_join_row)(call, 1, checks=True)  # stopped checking
    await sync_to_async(_join_row)(call, 2)  # never checks, still online
    await sync_to_async(_join_row)(call, 3)  # never checks, gone
    await sync_to_async(_join_row)(call, 4, alive_at=ahead)  # a sign of life at that moment

    async def listeners_of(user_ids=(), channel_ids=()):
        return {"L1": [u for u in user_ids if u == 2]}, set()

    published: list = []

    async def publish(change, exclude=None, also=()):
        published.append(change)

    monkeypatch.setattr(presence, "listeners_of", listeners_of)
    monkeypatch.setattr(group_liveness.group_push, "publish", publish)
    # (Participants other tests left behind may be dropped too: only this call is looked at.)
    assert await group_liveness.drop_stale(ahead) >= 2
    mine = [c for c in published if c.call["id"] == call.id]
    assert sorted(p["user_id"] for c in mine for p in c.participants if p["left"]) == [1, 3]
    rows = {p.user_id: p for p in await sync_to_async(list)(GroupCallParticipant.objects.filter(call=call))}
    assert sorted(rows) == [2, 4] and rows[2].alive_at >= now() - 2
    published.clear()
    await group_liveness.drop_stale(now())
    assert not [c for c in published if c.call["id"] == call.id]
