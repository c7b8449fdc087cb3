"""Reactions, views and read receipts with unmodified clients against the real listener:
B reacts to A's message in a megagroup, a broadcast channel and a private chat; A sees
it live with an unread badge, reads it, and the badge clears on A's other device;
chat reaction settings and limits; post views counted once per subscriber; "seen by"
in a small group; the read date of a private message; Kurigram reading reactions."""

from __future__ import annotations

import pytest

from tests.e2e.test_channels import input_user, logged_in, second_session, wait_for
from tests.e2e.test_private import make_live_kurigram, new_user

pytestmark = pytest.mark.django_db(transaction=True)

THUMBS, HEART, FIRE = "👍", "❤", "🔥"


def reaction_updates(into: list):
    from telethon import types

    async def handler(update):
        if isinstance(update, types.UpdateMessageReactions):
            into.append(update)

    return handler


def counts(reactions) -> dict:
    return {r.reaction.emoticon: r.count for r in (reactions.results if reactions else [])}


async def test_megagroup_reactions_live_unread_and_settings(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    a2 = await second_session(edge_server, phone, code, clients)

    catalog = await b(functions.messages.GetAvailableReactionsRequest(hash=0))
    emoji = [r.reaction for r in catalog.reactions]
    assert emoji[:3] == [THUMBS, HEART, FIRE] and len(emoji) == 72
    assert all(r.static_icon.id and r.select_animation.id and r.center_icon for r in catalog.reactions)
    # The files are real and download through upload.getFile like any document.
    thumbs_up = catalog.reactions[0]
    icon = await b.download_media(thumbs_up.static_icon, file=bytes)
    assert thumbs_up.static_icon.size == len(icon) > 0 and icon[:4] == b"RIFF" and icon[8:12] == b"WEBP"
    animation = await a.download_file(
        types.InputDocumentFileLocation(
            id=thumbs_up.select_animation.id,
            access_hash=thumbs_up.select_animation.access_hash,
            file_reference=thumbs_up.select_animation.file_reference,
            thumb_size="",
        ),
        file=bytes,
    )
    assert animation[:2] == b"\x1f\x8b" and thumbs_up.select_animation.mime_type == "application/x-tgsticker"
    again = await a(functions.messages.GetAvailableReactionsRequest(hash=0))
    assert [r.static_icon.id for r in again.reactions] == [r.static_icon.id for r in catalog.reactions]
    assert isinstance(
        await b(functions.messages.GetAvailableReactionsRequest(hash=catalog.hash)),
        types.messages.AvailableReactionsNotModified,
    )

    created = await a(functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title="Reacts"))
    channel = created.updates.chats[1]
    live_a, live_a2 = [], []
    a.add_event_handler(reaction_updates(live_a))
    a2.add_event_handler(reaction_updates(live_a2))
    for c in (a, a2, b):
        await c.get_dialogs()
    group_a = await a.get_input_entity(types.PeerChannel(channel.id))
    group_b = await b.get_input_entity(types.PeerChannel(channel.id))
    msg = await a.send_message(group_a, "react to me")

    sent = await b(
        functions.messages.SendReactionRequest(
            peer=group_b, msg_id=msg.id, reaction=[types.ReactionEmoji(emoticon=THUMBS)], add_to_recent=True
        )
    )
    mine = next(u for u in sent.updates if isinstance(u, types.UpdateMessageReactions))
    assert counts(mine.reactions) == {THUMBS: 1} and mine.reactions.results[0].chosen_order == 0

    # A sees it live on both devices, with B as an unread reactor.
    await wait_for(lambda: live_a and live_a2)
    seen = live_a[-1]
    assert seen.msg_id == msg.id and counts(seen.reactions) == {THUMBS: 1}
    assert seen.reactions.recent_reactions[0].peer_id.user_id == bob.id
    assert seen.reactions.recent_reactions[0].unread

    # Every read path shows it: history, exact ids, search.
    hist = await a(
        functions.messages.GetHistoryRequest(
            peer=group_a, offset_id=0, offset_date=0, add_offset=0, limit=10, max_id=0, min_id=0, hash=0
        )
    )
    shown = next(m for m in hist.messages if m.id == msg.id)
    assert counts(shown.reactions) == {THUMBS: 1} and shown.reactions.can_see_list
    assert any(u.id == bob.id for u in hist.users)
    exact = await b(functions.channels.GetMessagesRequest(channel=group_b, id=[types.InputMessageID(msg.id)]))
    assert exact.messages[0].reactions.results[0].chosen_order == 0
    found = await a(
        functions.messages.SearchRequest(
            peer=group_a, q="react", filter=types.InputMessagesFilterEmpty(), min_date=None, max_date=None,
            offset_id=0, add_offset=0, limit=10, max_id=0, min_id=0, hash=0,
        )
    )  # fmt: skip
    assert counts(found.messages[0].reactions) == {THUMBS: 1}

    # The unread badge, the unread list, and reading clears it on the other device.
    peer_dialogs = await a2(functions.messages.GetPeerDialogsRequest(peers=[types.InputDialogPeer(group_a)]))
    assert peer_dialogs.dialogs[0].unread_reactions_count == 1
    unread = await a(
        functions.messages.GetUnreadReactionsRequest(
            peer=group_a, offset_id=0, add_offset=0, limit=10, max_id=0, min_id=0
        )
    )
    assert [m.id for m in unread.messages] == [msg.id]
    live_a2.clear()
    assert await a(functions.channels.ReadMessageContentsRequest(channel=group_a, id=[msg.id]))
    await wait_for(lambda: live_a2)
    assert not live_a2[-1].reactions.recent_reactions[0].unread
    peer_dialogs = await a2(functions.messages.GetPeerDialogsRequest(peers=[types.InputDialogPeer(group_a)]))
    assert peer_dialogs.dialogs[0].unread_reactions_count == 0

    # Who reacted, filtered by one reaction.
    listed = await a(
        functions.messages.GetMessageReactionsListRequest(
            peer=group_a, id=msg.id, limit=10, reaction=types.ReactionEmoji(emoticon=THUMBS)
        )
    )
    assert listed.count == 1 and listed.reactions[0].peer_id.user_id == bob.id
    assert any(u.id == bob.id for u in listed.users)

    # Per-user limit (no Premium): one reaction at a time; a new one replaces it.
    with pytest.raises(errors.PremiumAccountRequiredError):
        await b(
            functions.messages.SendReactionRequest(
                peer=group_b, msg_id=msg.id,
                reaction=[types.ReactionEmoji(emoticon=THUMBS), types.ReactionEmoji(emoticon=HEART)],
            )
        )  # fmt: skip
    replaced = await b(
        functions.messages.SendReactionRequest(
            peer=group_b, msg_id=msg.id, reaction=[types.ReactionEmoji(emoticon=HEART)]
        )
    )
    assert counts(replaced.updates[0].reactions) == {HEART: 1}

    # Settings: only ❤, at most one distinct reaction per message; members see them.
    with pytest.raises(errors.ChatAdminRequiredError):
        await b(
            functions.messages.SetChatAvailableReactionsRequest(
                peer=group_b, available_reactions=types.ChatReactionsNone()
            )
        )
    await a(
        functions.messages.SetChatAvailableReactionsRequest(
            peer=group_a,
            available_reactions=types.ChatReactionsSome(reactions=[types.ReactionEmoji(emoticon=HEART)]),
            reactions_limit=1,
        )
    )
    full = await b(functions.channels.GetFullChannelRequest(channel=group_b))
    assert isinstance(full.full_chat.available_reactions, types.ChatReactionsSome)
    assert full.full_chat.reactions_limit == 1
    with pytest.raises(errors.ReactionInvalidError):
        await b(
            functions.messages.SendReactionRequest(
                peer=group_b, msg_id=msg.id, reaction=[types.ReactionEmoji(emoticon=FIRE)]
            )
        )

    # Clearing removes B's reaction; recent / top reactions remember B's use.
    cleared = await b(functions.messages.SendReactionRequest(peer=group_b, msg_id=msg.id))
    assert counts(cleared.updates[0].reactions) == {}
    recent = await b(functions.messages.GetRecentReactionsRequest(limit=10, hash=0))
    assert [r.emoticon for r in recent.reactions] == [THUMBS]
    assert isinstance(
        await b(functions.messages.GetRecentReactionsRequest(limit=10, hash=recent.hash)),
        types.messages.ReactionsNotModified,
    )
    top = await b(functions.messages.GetTopReactionsRequest(limit=5, hash=0))
    assert {r.emoticon for r in top.reactions[:2]} == {THUMBS, HEART} and len(top.reactions) == 5
    assert await b(functions.messages.ClearRecentReactionsRequest())
    recent = await b(functions.messages.GetRecentReactionsRequest(limit=10, hash=0))
    assert recent.reactions == []


async def test_broadcast_reactions_and_views(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    subs = [await logged_in(edge_server, name, clients) for name in ("Bob", "Carol", "Dave")]
    created = await a(functions.channels.CreateChannelRequest(title="News", about="", broadcast=True))
    channel = created.chats[0]
    news_a = await a.get_input_entity(types.PeerChannel(channel.id))
    await a(
        functions.channels.InviteToChannelRequest(
            channel=news_a, users=[input_user(alice, u) for u, *_ in subs]
        )
    )
    live_a: list = []
    a.add_event_handler(reaction_updates(live_a))
    await a.get_dialogs()
    pushed_b: list = []

    async def on_post(update):
        if isinstance(update, types.UpdateNewChannelMessage):
            pushed_b.append(update.message)

    subs[0][1].add_event_handler(on_post)
    await subs[0][1].get_dialogs()
    post = await a.send_message(news_a, "breaking")
    # Pushed live, the post already shows its author's view.
    await wait_for(lambda: pushed_b)
    assert pushed_b[-1].id == post.id and pushed_b[-1].views == 1 and post.views == 1

    # The author opening it again changes nothing; each subscriber adds one, once.
    got = await a(functions.messages.GetMessagesViewsRequest(peer=news_a, id=[post.id], increment=True))
    assert got.views[0].views == 1
    for n, (_user, client, *_) in enumerate(subs, start=2):
        await client.get_dialogs()
        news = await client.get_input_entity(types.PeerChannel(channel.id))
        for _ in range(2):
            got = await client(
                functions.messages.GetMessagesViewsRequest(peer=news, id=[post.id], increment=True)
            )
            assert got.views[0].views == n

    b = subs[0][1]
    news_b = await b.get_input_entity(types.PeerChannel(channel.id))
    await b(
        functions.messages.SendReactionRequest(
            peer=news_b, msg_id=post.id, reaction=[types.ReactionEmoji(emoticon=FIRE)]
        )
    )
    await wait_for(lambda: live_a)
    assert counts(live_a[-1].reactions) == {FIRE: 1} and not live_a[-1].reactions.can_see_list

    hist = await a(
        functions.messages.GetHistoryRequest(
            peer=news_a, offset_id=0, offset_date=0, add_offset=0, limit=5, max_id=0, min_id=0, hash=0
        )
    )
    shown = next(m for m in hist.messages if m.id == post.id)
    assert shown.views == 4 and counts(shown.reactions) == {FIRE: 1}
    peer_dialogs = await a(functions.messages.GetPeerDialogsRequest(peers=[types.InputDialogPeer(news_a)]))
    assert peer_dialogs.dialogs[0].unread_reactions_count == 1


async def test_private_reactions_live_unread_and_recovery(edge_server, edge_db, clients):
    from telethon import functions, types

    from tests.e2e.test_private import _peer

    alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    a2 = await second_session(edge_server, phone, code, clients)
    live_a: list = []
    a.add_event_handler(reaction_updates(live_a))
    contents_a2: list = []

    async def on_contents(update):
        if isinstance(update, types.UpdateReadMessagesContents):
            contents_a2.append(update)

    a2.add_event_handler(on_contents)
    before = await a2(functions.updates.GetStateRequest())

    sent = await a.send_message(_peer(alice, bob), "private hello")
    hist_b = await b(
        functions.messages.GetHistoryRequest(
            peer=_peer(bob, alice),
            offset_id=0,
            offset_date=0,
            add_offset=0,
            limit=5,
            max_id=0,
            min_id=0,
            hash=0,
        )
    )
    theirs = hist_b.messages[0]
    await b(
        functions.messages.SendReactionRequest(
            peer=_peer(bob, alice), msg_id=theirs.id, reaction=[types.ReactionEmoji(emoticon=HEART)]
        )
    )
    await wait_for(lambda: live_a)
    assert live_a[-1].msg_id == sent.id and counts(live_a[-1].reactions) == {HEART: 1}
    assert live_a[-1].reactions.recent_reactions[0].unread

    # A device that was offline gets it through getDifference.
    diff = await a2(functions.updates.GetDifferenceRequest(pts=before.pts, date=before.date, qts=0))
    ups = [u for u in diff.other_updates if isinstance(u, types.UpdateMessageReactions)]
    assert ups and ups[-1].msg_id == sent.id and counts(ups[-1].reactions) == {HEART: 1}

    dialogs = await a(
        functions.messages.GetPeerDialogsRequest(peers=[types.InputDialogPeer(_peer(alice, bob))])
    )
    assert dialogs.dialogs[0].unread_reactions_count == 1
    # The dialog list's top message carries the reaction, as history does.
    assert counts(dialogs.messages[0].reactions) == {HEART: 1}
    listed = await a.get_dialogs()
    top = next(d.message for d in listed if d.id == bob.id)
    assert top.id == sent.id and counts(top.reactions) == {HEART: 1}
    unread = await a(
        functions.messages.GetUnreadReactionsRequest(
            peer=_peer(alice, bob), offset_id=0, add_offset=0, limit=10, max_id=0, min_id=0
        )
    )
    assert [m.id for m in unread.messages] == [sent.id]
    affected = await a(functions.messages.ReadMessageContentsRequest(id=[sent.id]))
    assert affected.pts_count == 1
    await wait_for(lambda: contents_a2)
    assert contents_a2[-1].messages == [sent.id]
    dialogs = await a2(
        functions.messages.GetPeerDialogsRequest(peers=[types.InputDialogPeer(_peer(alice, bob))])
    )
    assert dialogs.dialogs[0].unread_reactions_count == 0

    # The read date of an outgoing private message comes from the read marks.
    from telethon import errors

    second = await a.send_message(_peer(alice, bob), "read me")
    with pytest.raises(errors.RPCError, match="MESSAGE_NOT_READ_YET"):
        await a(functions.messages.GetOutboxReadDateRequest(peer=_peer(alice, bob), msg_id=second.id))
    await b(functions.messages.ReadHistoryRequest(peer=_peer(bob, alice), max_id=0))
    read = await a(functions.messages.GetOutboxReadDateRequest(peer=_peer(alice, bob), msg_id=second.id))
    assert read.date >= second.date


async def test_read_participants_in_a_small_group(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    created = await a(
        functions.messages.CreateChatRequest(
            users=[input_user(alice, bob), input_user(alice, carol)], title="Seen"
        )
    )
    channel = created.updates.chats[1]
    for cl in (a, b, c):
        await cl.get_dialogs()
    group_a = await a.get_input_entity(types.PeerChannel(channel.id))
    msg = await a.send_message(group_a, "did you see this?")
    assert await a(functions.messages.GetMessageReadParticipantsRequest(peer=group_a, msg_id=msg.id)) == []
    for cl in (b, c):
        group = await cl.get_input_entity(types.PeerChannel(channel.id))
        await cl(functions.channels.ReadHistoryRequest(channel=group, max_id=msg.id))
    readers = await a(functions.messages.GetMessageReadParticipantsRequest(peer=group_a, msg_id=msg.id))
    assert {r.user_id for r in readers} == {bob.id, carol.id}
    assert all(r.date.timestamp() > 0 for r in readers)


async def test_kurigram_reads_reactions(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, phone, code = await new_user("Bob")
    k = make_live_kurigram(edge_server, "reactions_bob")
    await k.connect()
    try:
        sent_code = await k.send_code(phone)
        await k.sign_in(phone, sent_code.phone_code_hash, code)
        from tests.e2e.test_private import _peer

        sent = await a.send_message(_peer(alice, bob), "kurigram, react")
        # Kurigram names Alice only once it met her: the live push may still be on its way
        # (this client is not started), the dialog list names her for certain.
        [d async for d in k.get_dialogs()]
        history = [m async for m in k.get_chat_history(alice.id, limit=1)]
        await k.send_reaction(alice.id, history[0].id, emoji=THUMBS)
        again = await k.get_messages(alice.id, history[0].id)
        assert [(r.emoji, r.count) for r in again.reactions.reactions] == [(THUMBS, 1)]
        tops = {d.chat.id: d.top_message async for d in k.get_dialogs()}
        assert [(r.emoji, r.count) for r in tops[alice.id].reactions.reactions] == [(THUMBS, 1)]
        hist = await a(
            functions.messages.GetHistoryRequest(
                peer=_peer(alice, bob),
                offset_id=0,
                offset_date=0,
                add_offset=0,
                limit=1,
                max_id=0,
                min_id=0,
                hash=0,
            )
        )
        assert hist.messages[0].id == sent.id and counts(hist.messages[0].reactions) == {THUMBS: 1}
        assert isinstance(hist.messages[0].reactions.recent_reactions[0].peer_id, types.PeerUser)
    finally:
        await k.disconnect()
