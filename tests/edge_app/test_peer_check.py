"""Every update that leaves the listener carries every user and chat it names
(edge_app.peer_check): what breaks the rule is counted on /metrics and logged by the
update's name, never dropped; and the renderers name a chat or user whose row is gone
as one the viewer cannot open (channelForbidden, userEmpty) instead of leaving it out."""

import logging

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from accounts_app import actions
from accounts_app.tl_convert import difference_to_tl
from accounts_app.updates import Difference, Rendered, State
from edge_app import metrics, peer_check
from message_core import db
from message_core.context import chats_for, users_for
from tl import layers, types


def _updates(updates, users=(), chats=()):
    return types.Updates(updates=list(updates), users=list(users), chats=list(chats), date=0, seq=0)


def _missing_count(update: str, kind: str) -> float:
    return metrics.UPDATES_MISSING_PEERS.labels(update, kind)._value.get()


def test_an_update_channel_without_its_chat_is_counted_logged_and_still_sent(caplog):
    before = _missing_count("updateChannel", "chat")
    obj = _updates([types.UpdateChannel(channel_id=41)])
    with caplog.at_level(logging.WARNING, "telesrv.edge.peer_check"):
        data = peer_check.CheckedCodec().encode(obj, layers.PRIMARY)
    assert data == layers.encode(obj, layers.PRIMARY)
    assert _missing_count("updateChannel", "chat") == before + 1
    assert "updateChannel sent without the chat 41" in caplog.text


def test_a_draft_in_a_difference_naming_a_user_it_lacks_is_found():
    draft = types.UpdateDraftMessage(peer=types.PeerUser(user_id=7), draft=types.DraftMessageEmpty())
    diff = types.updates.Difference(
        new_messages=[], new_encrypted_messages=[], other_updates=[draft], chats=[], users=[],
        state=types.updates.State(pts=1, qts=0, date=0, seq=0, unread_count=0),
    )  # fmt: skip
    assert peer_check.missing_peers(diff) == [("updateDraftMessage", "user", 7)]


def test_updates_that_carry_what_they_name_and_other_answers_pass():
    user = types.UserEmpty(id=7)
    chat = types.ChannelForbidden(id=41, access_hash=0, title="")
    msg = types.Message(
        id=1,
        peer_id=types.PeerChannel(channel_id=41),
        from_id=types.PeerUser(user_id=7),
        date=0,
        message="hi",
    )
    ok = _updates([types.UpdateNewChannelMessage(message=msg, pts=1, pts_count=1)], [user], [chat])
    assert peer_check.missing_peers(ok) == []
    missing = _updates([types.UpdateNewChannelMessage(message=msg, pts=1, pts_count=1)], [], [chat])
    assert peer_check.missing_peers(missing) == [("updateNewChannelMessage", "user", 7)]
    # Only update-delivering objects are checked here (answers: tests/e2e/referenced.py).
    assert peer_check.missing_peers(types.UpdateShort(update=types.UpdateChannel(channel_id=3), date=0)) == []


@pytest.mark.django_db(transaction=True)
async def test_a_chat_or_user_whose_row_is_gone_is_carried_as_one_the_viewer_cannot_open():
    me = await sync_to_async(actions.do_create_user)("99966300901", "Vic")
    try:
        (chat,) = await chats_for(me.id, [987654321])
        assert isinstance(chat, types.ChannelForbidden) and chat.id == 987654321
        users = await users_for(me.id, [me.id, 123456789])
        assert [type(u).__name__ for u in users] == ["User", "UserEmpty"]
        draft = types.UpdateDraftMessage(
            peer=types.PeerUser(user_id=123456789), draft=types.DraftMessageEmpty()
        )
        diff = await difference_to_tl(
            Difference(kind="difference", state=State(pts=1, date=timezone.now())),
            [Rendered(updates=[draft], user_ids={123456789})],
            me.id,
        )
        assert peer_check.missing_peers(diff) == []
    finally:
        await db.close_pools()


def test_one_update_shared_by_many_recipients_is_judged_by_each_recipients_envelope():
    """A push wraps one update object in an envelope per recipient: the update's own
    walk is cached, and each envelope is still judged by what it carries."""
    msg = types.Message(
        id=1,
        peer_id=types.PeerChannel(channel_id=41),
        from_id=types.PeerUser(user_id=7),
        date=0,
        message="hi",
    )
    update = types.UpdateNewChannelMessage(message=msg, pts=1, pts_count=1)
    chat = types.ChannelForbidden(id=41, access_hash=0, title="")
    complete = _updates([update], [types.UserEmpty(id=7)], [chat])
    without_user = _updates([update], [], [chat])
    without_both = _updates([update])
    for _ in range(2):
        assert peer_check.missing_peers(complete) == []
        assert peer_check.missing_peers(without_user) == [("updateNewChannelMessage", "user", 7)]
        assert sorted(peer_check.missing_peers(without_both)) == [
            ("updateNewChannelMessage", "chat", 41),
            ("updateNewChannelMessage", "user", 7),
        ]
    # A different update object is walked on its own, not taken for the cached one.
    other = types.UpdateChannel(channel_id=42)
    assert peer_check.missing_peers(_updates([update, other], [types.UserEmpty(id=7)], [chat])) == [
        ("updateChannel", "chat", 42)
    ]
