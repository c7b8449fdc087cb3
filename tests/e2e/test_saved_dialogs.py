"""Saved Messages as chats with Telethon: forwards keep the chat they came from (their
sublist and ``saved_from``), sublists are listed, read, pinned (seen by the user's
second session), reordered, deleted, and reaction tags are counted per sublist."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.test_channels import (
    collect,
    input_user,
    logged_in,
    second_session,
    wait_for,
)

pytestmark = pytest.mark.django_db(transaction=True)


async def test_saved_sublists_pins_history_delete_and_tags(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    bob, b, _p, _c = await logged_in(edge_server, "Bob", clients)
    created = await a(functions.channels.CreateChannelRequest(title="Club", about="", megagroup=True))
    club = created.chats[0]
    a2 = await second_session(edge_server, phone, code, clients)
    seen = []
    a2.add_event_handler(collect(seen), events.Raw(types.UpdateSavedDialogPinned))
    await a2.get_dialogs()  # start receiving updates

    # Bob writes to Alice; Alice saves it, writes a note, saves a post of her group.
    bob_in_a = input_user(alice, bob)
    alice_in_b = input_user(bob, alice)
    await b.send_message(alice_in_b, "from bob")
    (from_bob,) = (await a(functions.messages.GetHistoryRequest(bob_in_a, 0, 0, 0, 1, 0, 0, 0))).messages
    await a(functions.messages.ForwardMessagesRequest(from_peer=bob_in_a, id=[from_bob.id], to_peer="me"))
    await a.send_message("me", "a note")
    post = await a.send_message(club, "club post")
    await a.forward_messages("me", post)

    saved = await a(functions.messages.GetSavedDialogsRequest(0, 0, types.InputPeerEmpty(), 100, 0))
    by_peer = {}
    for d in saved.dialogs:
        key = ("u", d.peer.user_id) if isinstance(d.peer, types.PeerUser) else ("c", d.peer.channel_id)
        by_peer[key] = d.top_message
    assert set(by_peer) == {("u", bob.id), ("u", alice.id), ("c", club.id)}
    tops = {m.id: m for m in saved.messages}
    bob_copy = tops[by_peer[("u", bob.id)]]
    assert bob_copy.message == "from bob" and bob_copy.saved_peer_id.user_id == bob.id
    assert bob_copy.fwd_from.from_id.user_id == bob.id
    assert (
        bob_copy.fwd_from.saved_from_peer.user_id == bob.id
        and bob_copy.fwd_from.saved_from_msg_id == from_bob.id
    )
    assert tops[by_peer[("c", club.id)]].fwd_from.saved_from_peer.channel_id == club.id
    assert tops[by_peer[("u", alice.id)]].fwd_from is None

    history = await a(functions.messages.GetSavedHistoryRequest(bob_in_a, 0, 0, 0, 20, 0, 0, 0))
    assert [m.message for m in history.messages] == ["from bob"]
    assert await a(functions.messages.ReadSavedHistoryRequest(types.InputPeerSelf(), bob_in_a, bob_copy.id))

    # Pin from one session; the other hears it and lists it.
    club_peer = types.InputDialogPeer(types.InputPeerChannel(club.id, club.access_hash))
    assert await a(functions.messages.ToggleSavedDialogPinRequest(peer=club_peer, pinned=True))
    await wait_for(lambda: seen)
    assert seen[0].pinned and seen[0].peer.peer.channel_id == club.id
    pinned = await a2(functions.messages.GetPinnedSavedDialogsRequest())
    assert [d.peer.channel_id for d in pinned.dialogs] == [club.id] and pinned.dialogs[0].pinned
    first = await a2(functions.messages.GetSavedDialogsRequest(0, 0, types.InputPeerEmpty(), 100, 0))
    assert isinstance(first.dialogs[0].peer, types.PeerChannel)
    assert await a(functions.messages.ReorderPinnedSavedDialogsRequest(
        order=[types.InputDialogPeer(bob_in_a), club_peer], force=True
    ))  # fmt: skip
    pinned = await a2(functions.messages.GetPinnedSavedDialogsRequest())
    assert [type(d.peer).__name__ for d in pinned.dialogs] == ["PeerUser", "PeerChannel"]

    # Tags: a reaction on the saved copy counts in Bob's sublist only.
    await a(functions.messages.SendReactionRequest(
        peer="me", msg_id=bob_copy.id, reaction=[types.ReactionEmoji(emoticon="👍")]
    ))  # fmt: skip
    tags = await a(functions.messages.GetSavedReactionTagsRequest(hash=0, peer=bob_in_a))
    assert [(t.reaction.emoticon, t.count) for t in tags.tags] == [("👍", 1)]
    other = await a(functions.messages.GetSavedReactionTagsRequest(hash=0, peer=types.InputPeerSelf()))
    assert all(t.count == 0 for t in other.tags)

    # Deleting Bob's sublist leaves the others.
    affected = await a(functions.messages.DeleteSavedHistoryRequest(peer=bob_in_a, max_id=0))
    assert affected.pts_count == 1
    left = await a(functions.messages.GetSavedDialogsRequest(0, 0, types.InputPeerEmpty(), 100, 0))
    assert {type(d.peer).__name__ + str(getattr(d.peer, "user_id", 0)) for d in left.dialogs} == {
        "PeerChannel0",
        f"PeerUser{alice.id}",
    }
    await asyncio.sleep(0)
