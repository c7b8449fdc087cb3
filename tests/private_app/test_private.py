"""Private chats below the transport: per-owner ids, replies, random-id retries, edit
and delete rules, read marks, the account-log events, and dialogs merged with channels."""

import asyncio
from datetime import UTC, datetime

import pytest
from asgiref.sync import sync_to_async

from accounts_app import updates
from accounts_app.actions import do_create_user
from accounts_app.models import Block, User
from message_core import db
from private_app import actions, dialogs
from private_app.models import PrivateDialog, PrivateMessage
from tests.channels_app.test_rpc import call, iu
from tl import functions, types
from tl.errors import RpcError


@pytest.fixture
async def users(chan):
    mk = sync_to_async(do_create_user)
    a = await mk("99966200001", "Alice")
    b = await mk("99966200002", "Bob")
    c = await mk("99966200003", "Carol")
    return a.id, b.id, c.id


def peer(viewer, uid):
    ref = iu(viewer, uid)
    return types.InputPeerUser(user_id=ref.user_id, access_hash=ref.access_hash)


async def send(a, b, text, rid, reply_to=0):
    return await actions.do_send_private_message(a, b, text, rid, reply_to_msg_id=reply_to)


async def older_channel_messages(channel_id: int) -> None:
    """Date a group's messages back, so its order against chats made in the same second is fixed."""
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE channel_messages SET date = date - 10 WHERE channel_id = %s", (channel_id,)
        )


def rpc_error(exc) -> str:
    return exc.value.message


async def events_of(user_id):
    diff = await sync_to_async(updates.get_account_difference)(user_id, 0)
    return [(e.type, e.payload) for e in diff.events]


async def test_ids_count_per_owner_and_replies_point_at_each_sides_copy(users):
    a, b, c = users
    await send(a, c, "to Carol", 1)  # A's id 1; B's sequence is untouched
    m1 = (await send(a, b, "hi", 2)).messages[0]
    assert m1["id"] == 2 and m1["out"]
    b_hist = await actions.get_history(b, a)
    assert [m["id"] for m in b_hist.messages] == [1] and not b_hist.messages[0]["out"]
    reply = (await send(b, a, "hello", 3, reply_to=1)).messages[0]
    assert reply["reply_to_msg_id"] == 1
    a_view = (await actions.get_history(a, b)).messages[0]
    assert a_view["message"] == "hello" and a_view["reply_to_msg_id"] == 2  # A's id of "hi"
    with pytest.raises(RpcError) as e:
        await send(b, a, "to nothing", 4, reply_to=99)
    assert rpc_error(e) == "REPLY_MESSAGE_ID_INVALID"
    assert [t for t, _ in await events_of(b)] == [actions.NEW_MESSAGE, actions.NEW_MESSAGE]


async def test_random_id_retry_returns_the_original_and_other_peer_is_refused(users):
    a, b, c = users
    first = await send(a, b, "once", 42)
    again = await send(a, b, "once", 42)
    assert again.messages[0] == first.messages[0] and not again.events  # the same message, all of it
    assert again.pts == first.events[0].pts
    assert await PrivateMessage.objects.acount() == 1
    with pytest.raises(RpcError) as e:
        await send(a, c, "elsewhere", 42)
    assert rpc_error(e) == "RANDOM_ID_DUPLICATE"
    with pytest.raises(RpcError) as e:
        await send(a, b, "no id", 0)
    assert rpc_error(e) == "RANDOM_ID_EMPTY"


async def test_concurrent_sends_between_two_users_keep_ids_and_pts_gapless(users):
    """Both sides sending at once: each send waits for the other's lock, and must then
    see the boxes the other committed (ids and pts count on without a gap or a clash)."""
    a, b, _ = users
    sends = [send(a, b, f"a{i}", 100 + i) for i in range(15)] + [
        send(b, a, f"b{i}", 200 + i) for i in range(15)
    ]
    done = await asyncio.gather(*sends)
    assert len({m["id"] for d in done[:15] for m in d.messages}) == 15
    for owner in (a, b):
        assert [
            m["id"] for m in reversed((await actions.get_history(owner, a + b - owner, limit=100)).messages)
        ] == list(range(1, 31))
        pts = [e.pts for e in (await sync_to_async(updates.get_account_difference)(owner, 0)).events]
        assert len(pts) == 30 and pts == list(range(pts[0], pts[0] + 30))
    # The dialog top is the newest message on each side.
    dialogs_a = await PrivateDialog.objects.aget(owner_id=a, peer_id=b)
    assert dialogs_a.top_box_id == 30


async def test_blocked_either_way_writes_nothing(users):
    a, b, _ = users
    await Block.objects.acreate(owner_id=b, user_id=a)
    with pytest.raises(RpcError) as e:
        await send(a, b, "hi", 1)
    assert rpc_error(e) == "USER_IS_BLOCKED"
    with pytest.raises(RpcError) as e:
        await send(b, a, "hi", 2)
    assert rpc_error(e) == "YOU_BLOCKED_USER"
    assert await PrivateMessage.objects.acount() == 0
    assert (await send(a, a, "saved", 3)).messages[0]["id"] == 1  # Saved Messages need no peer check


async def test_text_caps_and_deleted_recipient(users):
    a, b, c = users
    for text, err in (("", "MESSAGE_EMPTY"), ("x" * 4097, "MESSAGE_TOO_LONG")):
        with pytest.raises(RpcError) as e:
            await send(a, b, text, 7)
        assert rpc_error(e) == err
    await User.objects.filter(id=c).aupdate(deleted=True)
    with pytest.raises(RpcError) as e:
        await send(a, c, "gone", 8)
    assert rpc_error(e) == "INPUT_USER_DEACTIVATED"
    assert await PrivateMessage.objects.acount() == 0  # nothing half-written


async def test_edit_rules(users):
    a, b, _ = users
    mine = (await send(a, b, "draft", 1)).messages[0]
    with pytest.raises(RpcError) as e:
        await actions.do_edit_private_message(b, a, 1, "not mine", [])
    assert rpc_error(e) == "MESSAGE_AUTHOR_REQUIRED"
    with pytest.raises(RpcError) as e:
        await actions.do_edit_private_message(a, b, mine["id"], "draft", [])
    assert rpc_error(e) == "MESSAGE_NOT_MODIFIED"
    edited = await actions.do_edit_private_message(a, b, mine["id"], "final", [])
    assert edited.messages[0]["message"] == "final" and edited.messages[0]["edit_date"]
    assert (await actions.get_history(b, a)).messages[0]["message"] == "final"  # one shared copy
    assert (await events_of(b))[-1] == (actions.EDIT_MESSAGE, {"box_id": 1})
    # Older than 48 hours: no longer editable, except in Saved Messages.
    saved = (await send(a, a, "note", 2)).messages[0]
    await PrivateMessage.objects.aupdate(date=1)
    with pytest.raises(RpcError) as e:
        await actions.do_edit_private_message(a, b, mine["id"], "later", [])
    assert rpc_error(e) == "MESSAGE_EDIT_TIME_EXPIRED"
    await actions.do_edit_private_message(a, a, saved["id"], "note, later", [])


async def test_delete_for_me_and_for_both_moves_the_dialog_top(users):
    a, b, _ = users
    for i in range(3):
        await send(a, b, f"m{i}", 10 + i)
    _, count = await actions.do_delete_private_messages(a, [3])  # only A's copy
    assert count == 1 and [m["message"] for m in (await actions.get_history(b, a)).messages] == [
        "m2",
        "m1",
        "m0",
    ]
    entries, _ = await dialogs.get_dialogs(a, limit=10)
    assert entries[0].top_message["message"] == "m1"
    _, count = await actions.do_delete_private_messages(a, [1, 2, 99], revoke=True)
    assert count == 2
    assert [m["message"] for m in (await actions.get_history(b, a)).messages] == ["m2"]
    assert (await events_of(b))[-1] == (actions.DELETE_MESSAGES, {"ids": [1, 2]})
    assert (await dialogs.get_dialogs(a, limit=10)) == ([], 0)  # nothing left: not listed
    got = await actions.get_messages(b, [1, 3])
    assert got[0].get("empty") and got[1]["message"] == "m2"


async def test_delete_history_in_bounded_pages(users, monkeypatch):
    from message_core import limits

    a, b, _ = users
    for i in range(7):
        await send(a, b, f"m{i}", 100 + i)
    monkeypatch.setattr(limits, "DELETE_HISTORY_PAGE", 5)
    _, count, more = await actions.do_delete_private_history(a, b, revoke=True)
    assert (count, more) == (5, True)
    _, count, more = await actions.do_delete_private_history(a, b, revoke=True)
    assert (count, more) == (2, False)
    assert (await actions.get_history(b, a)).messages == []


async def test_read_marks_unread_counts_and_the_senders_outbox(users):
    a, b, _ = users
    for i in range(4):
        await send(a, b, f"m{i}", 200 + i)
    (entry,) = await dialogs.get_peer_dialogs(b, [a])
    assert entry.unread_count == 4
    _, count = await actions.do_read_history(b, a, 2)
    assert count == 1
    (entry,) = await dialogs.get_peer_dialogs(b, [a])
    assert entry.unread_count == 2 and entry.dialog["read_inbox_max_id"] == 2
    assert (await events_of(b))[-1] == (
        actions.READ_INBOX,
        {"peer_id": a, "max_id": 2, "still_unread_count": 2},
    )
    assert (await events_of(a))[-1] == (actions.READ_OUTBOX, {"peer_id": b, "max_id": 2})
    # Reading again below the mark changes nothing and takes no pts.
    assert (await actions.do_read_history(b, a, 1))[1] == 0


async def test_difference_renders_messages_as_they_are_now(users):
    a, b, _ = users
    await send(a, b, "one", 1)
    await send(a, b, "two", 2)
    await actions.do_edit_private_message(a, b, 1, "one (edited)", [])
    await actions.do_delete_private_messages(a, [2], revoke=True)
    diff = await updates.do_get_difference(b, 0, datetime.now(UTC))
    parts = [await updates.render_event(e, b) for e in diff.events]
    new = [p for p in parts if p and p.messages]
    assert [p.messages[0].message for p in new] == ["one (edited)"]  # "two" is deleted
    kinds = [type(u).__name__ for p in parts if p for u in p.updates]
    assert kinds == ["UpdateEditMessage", "UpdateDeleteMessages"]


async def test_rpc_dialogs_merge_private_chats_with_channels(users):
    a, b, c = users
    made = await call(a, functions.messages.CreateChat(users=[iu(a, b)], title="Group"))
    ch = made.updates.chats[1]
    await older_channel_messages(ch.id)
    await call(a, functions.messages.SendMessage(peer=peer(a, c), message="to Carol", random_id=1))
    await call(b, functions.messages.SendMessage(peer=peer(b, a), message="from Bob", random_id=2))
    res = await call(
        a,
        functions.messages.GetDialogs(
            offset_date=0, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=10, hash=0
        ),
    )
    order = [
        type(d.peer).__name__ + str(getattr(d.peer, "user_id", getattr(d.peer, "channel_id", 0)))
        for d in res.dialogs
    ]
    assert order == [f"PeerUser{b}", f"PeerUser{c}", f"PeerChannel{ch.id}"]
    assert isinstance(res, types.messages.Dialogs) and len(res.messages) == 3
    assert {u.id for u in res.users} >= {a, b, c}
    bob = res.dialogs[0]
    assert bob.unread_count == 1 and bob.top_message == 2
    # A pinned channel stays above the private chats; the seek cursor pages through both.
    await call(
        a,
        functions.messages.ToggleDialogPin(
            pinned=True,
            peer=types.InputDialogPeer(
                peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
            ),
        ),
    )
    res = await call(
        a,
        functions.messages.GetDialogs(
            offset_date=0, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=2, hash=0
        ),
    )
    assert [type(d.peer).__name__ for d in res.dialogs] == ["PeerChannel", "PeerUser"]
    assert isinstance(res, types.messages.DialogsSlice) and res.count == 3
    last = next(m for m in res.messages if m.id == res.dialogs[-1].top_message)
    rest = await call(
        a,
        functions.messages.GetDialogs(
            offset_date=last.date, offset_id=last.id, offset_peer=peer(a, b), limit=10, hash=0
        ),
    )
    assert [d.peer.user_id for d in rest.dialogs] == [c]
    # getPeerDialogs answers both kinds in request order.
    both = await call(
        a,
        functions.messages.GetPeerDialogs(
            peers=[
                types.InputDialogPeer(peer=peer(a, c)),
                types.InputDialogPeer(
                    peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
                ),
            ]
        ),
    )
    assert [type(d.peer).__name__ for d in both.dialogs] == ["PeerUser", "PeerChannel"]


async def test_rpc_private_methods_and_wrong_hash(users):
    a, b, _ = users
    sent = await call(a, functions.messages.SendMessage(peer=peer(a, b), message="hi", random_id=5))
    kinds = [type(u).__name__ for u in sent.updates]
    assert kinds == ["UpdateMessageID", "UpdateNewMessage"]
    assert sent.updates[1].message.id == 1 and sent.updates[1].pts == 2  # account pts starts at 1
    hist = await call(
        b,
        functions.messages.GetHistory(
            peer=peer(b, a), offset_id=0, offset_date=0, add_offset=0, limit=10, max_id=0, min_id=0, hash=0
        ),
    )
    assert [m.message for m in hist.messages] == ["hi"] and isinstance(hist, types.messages.Messages)
    found = await call(
        b,
        functions.messages.Search(
            peer=peer(b, a),
            q="h",
            filter=types.InputMessagesFilterEmpty(),
            min_date=0,
            max_date=0,
            offset_id=0,
            add_offset=0,
            limit=10,
            max_id=0,
            min_id=0,
            hash=0,
        ),
    )
    assert len(found.messages) == 1
    none = await call(
        b,
        functions.messages.Search(
            peer=peer(b, a),
            q="zzz",
            filter=types.InputMessagesFilterEmpty(),
            min_date=0,
            max_date=0,
            offset_id=0,
            add_offset=0,
            limit=10,
            max_id=0,
            min_id=0,
            hash=0,
        ),
    )
    assert none.messages == []
    wrong = types.InputPeerUser(user_id=b, access_hash=123)
    for req in (
        functions.messages.SendMessage(peer=wrong, message="x", random_id=6),
        functions.messages.GetHistory(
            peer=wrong, offset_id=0, offset_date=0, add_offset=0, limit=10, max_id=0, min_id=0, hash=0
        ),
        functions.messages.ReadHistory(peer=wrong, max_id=0),
    ):
        with pytest.raises(RpcError) as e:
            await call(a, req)
        assert rpc_error(e) == "PEER_ID_INVALID"
    await call(
        b,
        functions.messages.SendMessage(
            peer=peer(b, a), message="re", random_id=7, reply_to=types.InputReplyToMessage(reply_to_msg_id=1)
        ),
    )
    got = await call(
        b,
        functions.messages.GetMessages(id=[types.InputMessageReplyTo(id=2), types.InputMessageReplyTo(id=1)]),
    )
    assert got.messages[0].message == "hi" and isinstance(got.messages[1], types.MessageEmpty)
    with pytest.raises(RpcError) as e:  # more than a year ahead: refused, never sent at once
        await call(
            a,
            functions.messages.SendMessage(
                peer=peer(a, b), message="later", random_id=9, schedule_date=2**31 - 1
            ),
        )
    assert rpc_error(e) == "SCHEDULE_DATE_TOO_LATE"
    with pytest.raises(RpcError) as e:
        await call(a, functions.messages.GetMessages(id=[types.InputMessageID(id=i) for i in range(101)]))
    assert rpc_error(e) == "LIMIT_INVALID"


async def test_rpc_unread_mark_and_archive_for_private_chats(users):
    a, b, _ = users
    await call(b, functions.messages.SendMessage(peer=peer(b, a), message="hi", random_id=1))
    bob = types.InputDialogPeer(peer=peer(a, b))

    def list_dialogs(folder_id=None):
        return functions.messages.GetDialogs(
            offset_date=0,
            offset_id=0,
            offset_peer=types.InputPeerEmpty(),
            limit=10,
            hash=0,
            folder_id=folder_id,
        )

    assert await call(a, functions.messages.MarkDialogUnread(peer=bob, unread=True))
    marks = await call(a, functions.messages.GetDialogUnreadMarks())
    assert [m.peer.user_id for m in marks] == [b]
    assert (await call(a, list_dialogs())).dialogs[0].unread_mark
    assert (await events_of(a))[-1] == (dialogs.UNREAD_MARK, {"peer_id": b, "unread": True})
    # Reading the chat clears the mark.
    await call(a, functions.messages.ReadHistory(peer=peer(a, b), max_id=0))
    assert await call(a, functions.messages.GetDialogUnreadMarks()) == []

    res = await call(
        a,
        functions.folders.EditPeerFolders(folder_peers=[types.InputFolderPeer(peer=peer(a, b), folder_id=1)]),
    )
    (update,) = res.updates
    assert isinstance(update, types.UpdateFolderPeers) and update.folder_peers[0].peer.user_id == b
    assert update.pts == (await sync_to_async(updates.get_state)(a)).pts
    assert (await call(a, list_dialogs(0))).dialogs == []
    archived = (await call(a, list_dialogs(1))).dialogs
    assert [d.peer.user_id for d in archived] == [b] and archived[0].folder_id == 1
    with pytest.raises(RpcError) as e:
        await call(
            a,
            functions.folders.EditPeerFolders(
                folder_peers=[types.InputFolderPeer(peer=peer(a, b), folder_id=2)]
            ),
        )
    assert rpc_error(e) == "FOLDER_ID_INVALID"


async def test_rpc_pins_share_one_order_and_cap_across_chats_and_channels(users):
    a, b, c = users
    made = await call(a, functions.messages.CreateChat(users=[iu(a, b)], title="Group"))
    ch = made.updates.chats[1]
    group = types.InputDialogPeer(peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash))
    await older_channel_messages(ch.id)
    await call(c, functions.messages.SendMessage(peer=peer(c, a), message="from Carol", random_id=1))
    bob, carol = types.InputDialogPeer(peer=peer(a, b)), types.InputDialogPeer(peer=peer(a, c))

    def first_page(limit=10):
        return functions.messages.GetDialogs(
            offset_date=0, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=limit, hash=0
        )

    def names(res):
        return [getattr(d.peer, "user_id", None) or getattr(d.peer, "channel_id", None) for d in res.dialogs]

    assert names(await call(a, first_page())) == [c, ch.id]
    await call(a, functions.messages.ToggleDialogPin(pinned=True, peer=group))
    await call(
        a, functions.messages.ToggleDialogPin(pinned=True, peer=bob)
    )  # no messages yet: listed once pinned
    res = await call(a, first_page())
    assert names(res) == [b, ch.id, c] and [d.pinned for d in res.dialogs] == [True, True, False]
    pinned = await call(a, functions.messages.GetPinnedDialogs(folder_id=0))
    assert names(pinned) == [b, ch.id]
    assert (await events_of(a))[-1] == (dialogs.DIALOG_PINNED, {"peer_id": b, "pinned": True, "folder_id": 0})

    # A page that ends inside the pinned block goes on with the next pin, then the rest.
    one = await call(a, first_page(limit=1))
    assert names(one) == [b]
    rest = await call(
        a,
        functions.messages.GetDialogs(offset_date=0, offset_id=0, offset_peer=peer(a, b), limit=10, hash=0),
    )
    assert names(rest) == [ch.id, c]

    await call(a, functions.messages.ReorderPinnedDialogs(folder_id=0, order=[group, bob], force=True))
    assert names(await call(a, first_page())) == [ch.id, b, c]
    await call(a, functions.messages.ReorderPinnedDialogs(folder_id=0, order=[carol], force=True))
    assert names(await call(a, first_page()))[:1] == [c] and names(
        await call(a, functions.messages.GetPinnedDialogs(folder_id=0))
    ) == [c]

    # The cap counts both kinds.
    mk = sync_to_async(do_create_user)
    others = [await mk(f"9996630{i:04d}", f"U{i}") for i in range(9)]
    for u in others:
        await call(
            a, functions.messages.ToggleDialogPin(pinned=True, peer=types.InputDialogPeer(peer=peer(a, u.id)))
        )
    with pytest.raises(RpcError) as e:
        await call(a, functions.messages.ToggleDialogPin(pinned=True, peer=group))
    assert rpc_error(e) == "PINNED_DIALOGS_TOO_MUCH"


async def test_rpc_cloud_drafts_in_chats_and_channels(users):
    from messages_app import update_kinds

    a, b, _ = users
    made = await call(a, functions.messages.CreateChat(users=[iu(a, b)], title="Group"))
    ch = made.updates.chats[1]
    group = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
    await call(b, functions.messages.SendMessage(peer=peer(b, a), message="hi", random_id=1))
    assert await call(
        a,
        functions.messages.SaveDraft(
            peer=peer(a, b), message="half a reply", reply_to=types.InputReplyToMessage(reply_to_msg_id=1)
        ),
    )
    assert await call(a, functions.messages.SaveDraft(peer=group, message="for the group"))
    assert (await events_of(a))[-1][0] == update_kinds.DRAFT

    res = await call(
        a,
        functions.messages.GetDialogs(
            offset_date=0, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=10, hash=0
        ),
    )
    shown = {getattr(d.peer, "user_id", None) or d.peer.channel_id: d.draft for d in res.dialogs}
    assert shown[b].message == "half a reply" and shown[b].reply_to.reply_to_msg_id == 1
    assert shown[ch.id].message == "for the group"
    listed = await call(a, functions.messages.GetAllDrafts())
    assert sorted(u.draft.message for u in listed.updates) == ["for the group", "half a reply"]
    assert any(c.id == ch.id for c in listed.chats) and any(u.id == b for u in listed.users)

    # An empty text clears the draft (updateDraftMessage with draftMessageEmpty for the other devices).
    assert await call(a, functions.messages.SaveDraft(peer=peer(a, b), message=""))
    diff = await updates.do_get_difference(
        a, (await sync_to_async(updates.get_state)(a)).pts - 1, datetime.now(UTC)
    )
    (part,) = await updates.render_events(diff.events, a)
    assert isinstance(part.updates[0].draft, types.DraftMessageEmpty)
    assert [u.draft.message for u in (await call(a, functions.messages.GetAllDrafts())).updates] == [
        "for the group"
    ]
    assert await call(a, functions.messages.ClearAllDrafts())
    assert (await call(a, functions.messages.GetAllDrafts())).updates == []
    with pytest.raises(RpcError) as e:
        await call(a, functions.messages.SaveDraft(peer=peer(a, b), message="x" * 4097))
    assert rpc_error(e) == "MESSAGE_TOO_LONG"
