"""Inline mode beyond one query: the server's cache of answers (cache_time, personal),
gallery, next_offset paging and switch_pm, as Telethon users and a Telethon bot see
them."""

from __future__ import annotations

import secrets

import pytest

from tests.e2e.test_bots import _new_bot, bot_client
from tests.e2e.test_channels import collect, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


async def test_inline_answers_are_cached_per_cache_time_and_personal(edge_server, edge_db, clients):
    """A repeated query within the bot's cache_time is answered from the cache, for any
    user, without reaching the bot, and its results can be sent; a personal answer is
    cached for its user only; cache_time 0 and another offset ask the bot again;
    gallery, next_offset and switch_pm reach the user."""
    from telethon import events, functions, types

    from accounts_app.access import user_access_hash
    from bots_app import actions
    from edge_app.orm_threads import in_thread

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, _, token = await _new_bot(alice.id, "Cache")
    await in_thread(actions.do_set_inline)(alice.id, bot_id, "Search...")
    bot = await bot_client(edge_server, token, clients)
    asked: list = []

    @bot.on(events.InlineQuery())
    async def answer(event):
        offset = event.query.offset
        asked.append((event.sender_id, event.text.split()[0], offset))
        builder = event.builder
        text = event.text.split()[0]
        if text == "me":
            await event.answer([builder.article(f"for {event.sender_id}", text="mine")], 300, private=True)
        elif text == "fresh":
            await event.answer([builder.article(f"fresh {len(asked)}", text="f")], 0)
        else:
            page = int(offset or 0)
            await event.answer(
                [builder.article(f"{text} {page + i}", text=f"{text} {page + i}") for i in range(2)],
                300,
                gallery=True,
                next_offset=str(page + 2) if page < 2 else None,
                switch_pm="Set up",
                switch_pm_param="setup",
            )

    # Bot ids repeat between test runs while Redis (the cache) does not start empty.
    run = secrets.token_hex(3)

    def ask(client, viewer, query, offset=""):
        query = f"{query} {run}"
        bot_user = types.InputUser(bot_id, user_access_hash(viewer.id, bot_id))
        return client(
            functions.messages.GetInlineBotResultsRequest(
                bot=bot_user, peer=types.InputPeerSelf(), query=query, offset=offset
            )
        )

    first = await ask(a, alice, "cats")
    assert [r.title for r in first.results] == ["cats 0", "cats 1"]
    assert first.gallery and first.next_offset == "2" and first.cache_time == 300
    assert first.switch_pm.text == "Set up" and first.switch_pm.start_param == "setup"
    assert asked == [(alice.id, "cats", "")]

    # Bob asks the same: the cache answers, the bot hears nothing.
    cached = await ask(b, bob, "cats")
    assert [r.title for r in cached.results] == ["cats 0", "cats 1"]
    assert cached.gallery and cached.next_offset == "2" and cached.switch_pm.start_param == "setup"
    assert cached.query_id != first.query_id
    assert [u.id for u in cached.users] == [bot_id]
    # ...and Bob can send a result of the cached answer, via the bot.
    got_a: list = []
    a.add_event_handler(collect(got_a, "message"), events.NewMessage(incoming=True))
    alice_peer = types.InputPeerUser(alice.id, user_access_hash(bob.id, alice.id))
    sent = await b(
        functions.messages.SendInlineBotResultRequest(
            peer=alice_peer, query_id=cached.query_id, id=cached.results[1].id, random_id=7
        )
    )
    mine = next(u.message for u in sent.updates if isinstance(u, types.UpdateNewMessage))
    assert mine.via_bot_id == bot_id and mine.message == "cats 1"
    await wait_for(lambda: any(m.message == "cats 1" and m.via_bot_id == bot_id for m in got_a))

    # The next page is another query for the bot; the last page has no next_offset.
    page2 = await ask(a, alice, "cats", "2")
    assert [r.title for r in page2.results] == ["cats 2", "cats 3"] and not page2.next_offset
    assert asked[-1] == (alice.id, "cats", "2") and len(asked) == 2
    await ask(b, bob, "cats", "2")
    assert len(asked) == 2

    # A personal answer is cached for its user only.
    mine_a = await ask(a, alice, "me")
    assert [r.title for r in mine_a.results] == [f"for {alice.id}"]
    mine_b = await ask(b, bob, "me")
    assert [r.title for r in mine_b.results] == [f"for {bob.id}"]
    assert len(asked) == 4
    again_a = await ask(a, alice, "me")
    assert [r.title for r in again_a.results] == [f"for {alice.id}"] and len(asked) == 4

    # cache_time 0: every query reaches the bot.
    await ask(a, alice, "fresh")
    await ask(a, alice, "fresh")
    assert [q[1] for q in asked[-2:]] == ["fresh", "fresh"] and len(asked) == 6


async def test_inline_result_posted_into_a_broadcast_channel(edge_server, edge_db, clients):
    """The channel owner asks an inline bot from a broadcast channel (the bot is told the
    chat is a broadcast) and posts a result with its keyboard there: the post carries
    via_bot_id and the keyboard for the owner's answer, a subscriber's live update and
    the subscriber's history."""
    from telethon import Button, events, functions, types

    from accounts_app.access import user_access_hash
    from bots_app import actions
    from edge_app.orm_threads import in_thread

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, _, token = await _new_bot(alice.id, "Poster")
    await in_thread(actions.do_set_inline)(alice.id, bot_id, "Post...")
    bot = await bot_client(edge_server, token, clients)
    peer_types: list = []

    @bot.on(events.InlineQuery())
    async def answer(event):
        peer_types.append(event.query.peer_type)
        await event.answer(
            [
                event.builder.article(
                    "News", text=f"News: {event.text}", buttons=[Button.url("Read", "https://example.org/n")]
                )
            ]
        )

    created = await a(functions.channels.CreateChannelRequest(title="Daily", about="", broadcast=True))
    channel = created.chats[0]
    ic = types.InputChannel(channel.id, channel.access_hash)
    await a(
        functions.channels.InviteToChannelRequest(
            ic, [types.InputUser(bob.id, user_access_hash(alice.id, bob.id))]
        )
    )
    got_b: list = []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage())
    await b.get_dialogs()

    peer = types.InputPeerChannel(channel.id, channel.access_hash)
    bot_user = types.InputUser(bot_id, user_access_hash(alice.id, bot_id))
    results = await a(
        functions.messages.GetInlineBotResultsRequest(bot=bot_user, peer=peer, query="rain", offset="")
    )
    assert isinstance(peer_types[0], types.InlineQueryPeerTypeBroadcast)
    sent = await a(
        functions.messages.SendInlineBotResultRequest(
            peer=peer, query_id=results.query_id, id=results.results[0].id, random_id=4242
        )
    )
    post = next(
        u.message
        for u in sent.updates
        if isinstance(u, types.UpdateNewChannelMessage | types.UpdateNewMessage)
    )
    assert post.post and post.via_bot_id == bot_id and post.message == "News: rain"
    assert post.reply_markup.rows[0].buttons[0].type.url == "https://example.org/n"
    assert bot_id in [u.id for u in sent.users]

    await wait_for(lambda: any(m.message == "News: rain" for m in got_b))
    live = next(m for m in got_b if m.message == "News: rain")
    assert live.post and live.via_bot_id == bot_id
    assert live.reply_markup.rows[0].buttons[0].type.url == "https://example.org/n"
    (again,) = await b.get_messages(peer, ids=[post.id])
    assert again.via_bot_id == bot_id and again.reply_markup.rows[0].buttons[0].text == "Read"
