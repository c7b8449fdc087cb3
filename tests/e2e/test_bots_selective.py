"""`selective` keyboards in a supergroup, as Telethon members see them: a selective
keyboard reaches only the users the bot's message replies to or mentions (and the bot);
a keyboard without `selective` reaches everyone."""

from __future__ import annotations

import pytest

from tests.e2e.test_bots import _new_bot, bot_client
from tests.e2e.test_channels import collect, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


async def test_selective_keyboard_reaches_only_the_replied_to_member(edge_server, edge_db, clients):
    from telethon import Button, events, functions, types

    from accounts_app.access import user_access_hash

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    bot_id, _, token = await _new_bot(alice.id, "Picker")

    created = await a(functions.channels.CreateChannelRequest(title="Pick", about="", megagroup=True))
    channel = created.chats[0]
    ic = types.InputChannel(channel.id, channel.access_hash)
    await a(
        functions.channels.InviteToChannelRequest(
            ic, [types.InputUser(u, user_access_hash(alice.id, u)) for u in (bob.id, carol.id, bot_id)]
        )
    )
    bot = await bot_client(edge_server, token, clients)
    bot_sent: list = []

    @bot.on(events.NewMessage(incoming=True, pattern="/choose"))
    async def choose(event):
        bot_sent.append(
            await event.reply(
                "Bob, choose", buttons=[Button.text("Red", selective=True), Button.text("Blue")]
            )
        )

    @bot.on(events.NewMessage(incoming=True, pattern="/all"))
    async def for_all(event):
        await event.reply("Everyone, choose", buttons=[Button.text("Green", resize=True)])

    seen = {"a": [], "b": [], "c": []}
    for key, client in (("a", a), ("b", b), ("c", c)):
        client.add_event_handler(collect(seen[key], "message"), events.NewMessage())
        await client.get_dialogs()
    group = types.InputPeerChannel(channel.id, channel.access_hash)

    await b.send_message(group, "/choose")
    for key in "abc":
        await wait_for(lambda key=key: any(m.message == "Bob, choose" for m in seen[key]))

    def markup(key, text):
        return next(m for m in seen[key] if m.message == text).reply_markup

    keyboard = markup("b", "Bob, choose")
    assert isinstance(keyboard, types.ReplyKeyboardMarkup) and keyboard.selective
    assert [btn.text for btn in keyboard.rows[0].buttons] == ["Red", "Blue"]
    assert markup("a", "Bob, choose") is None and markup("c", "Bob, choose") is None
    await wait_for(lambda: bot_sent)
    assert bot_sent[0].reply_markup.rows[0].buttons[0].text == "Red"  # the bot sees its own keyboard

    # The same in each member's history.
    msg_id = next(m for m in seen["b"] if m.message == "Bob, choose").id
    (for_bob,) = await b.get_messages(group, ids=[msg_id])
    (for_carol,) = await c.get_messages(group, ids=[msg_id])
    assert for_bob.reply_markup.rows[0].buttons[0].text == "Red"
    assert for_carol.reply_markup is None and for_carol.message == "Bob, choose"

    # Without selective, every member gets the keyboard.
    await c.send_message(group, "/all")
    for key in "abc":
        await wait_for(lambda key=key: any(m.message == "Everyone, choose" for m in seen[key]))
    for key in "abc":
        assert markup(key, "Everyone, choose").rows[0].buttons[0].text == "Green"
