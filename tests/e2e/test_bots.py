"""Bots with unmodified clients in bot mode: token login (Telethon, Kurigram), token
revocation reaching a live bot session, bot flags and botInfo as users see them, the
service bot's conversation, echo bots."""

from __future__ import annotations

import pytest

from tests.e2e import harness
from tests.e2e.test_channels import collect, input_user, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _username(prefix: str) -> str:
    import secrets

    return f"{prefix}{secrets.token_hex(4)}_bot"


async def _new_bot(owner_id: int, name: str = "Helper") -> tuple[int, str, str]:
    from bots_app import actions
    from edge_app.orm_threads import in_thread

    username = _username(name.lower())
    created = await in_thread(actions.do_create_bot)(owner_id, name, username)
    return created.user.id, username, created.token


async def bot_client(server, token: str, clients: list, receive_updates: bool = True):
    """A Telethon client logged in as a bot with ``token``."""
    client = harness.make_telethon(server, "abridged", receive_updates=receive_updates)
    clients.append(client)
    await client.connect()
    await client.sign_in(bot_token=token)
    return client


async def test_bot_token_login_flags_and_revocation(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id)

    b = await bot_client(edge_server, token, clients)
    me = await b.get_me()
    assert me.id == bot_id and me.bot and me.username == username and me.phone is None

    # The bot sets its commands and description; the owner sees them in botInfo.
    await b(
        functions.bots.SetBotCommandsRequest(
            scope=types.BotCommandScopeDefault(),
            lang_code="",
            commands=[types.BotCommand("start", "Start"), types.BotCommand("help", "Show help")],
        )
    )
    await b(functions.bots.SetBotInfoRequest(lang_code="", description="I help.", about="A helper"))
    got = await b(functions.bots.GetBotCommandsRequest(scope=types.BotCommandScopeDefault(), lang_code=""))
    assert [c.command for c in got] == ["start", "help"]
    with pytest.raises(errors.BotCommandInvalidError):
        await b(
            functions.bots.SetBotCommandsRequest(
                scope=types.BotCommandScopeDefault(),
                lang_code="",
                commands=[types.BotCommand("Bad Cmd", "x")],
            )
        )

    full = await a(functions.users.GetFullUserRequest(input_user(alice, me)))
    (seen,) = full.users
    assert seen.bot and seen.bot_info_version >= 2 and not seen.bot_nochats
    info = full.full_user.bot_info
    assert info.description == "I help." and [c.command for c in info.commands] == ["start", "help"]
    assert full.full_user.about == "A helper"

    # A user may not call the bots' own methods.
    with pytest.raises(errors.UserBotRequiredError):
        await a(functions.bots.GetBotCommandsRequest(scope=types.BotCommandScopeDefault(), lang_code=""))

    # Wrong token, then a revoked one.
    other = harness.make_telethon(edge_server, "abridged")
    clients.append(other)
    await other.connect()
    with pytest.raises(errors.AccessTokenInvalidError):
        await other.sign_in(bot_token=f"{bot_id}:AAwrong-secret-aaaaaaaaaaaaaaaaaaaaaaaaa")

    revoked = await a(functions.bots.ExportBotTokenRequest(bot=input_user(alice, me), revoke=True))
    assert revoked.token != token and revoked.token.startswith(f"{bot_id}:")
    with pytest.raises(errors.AccessTokenExpiredError):
        await other.sign_in(bot_token=token)
    # The session that logged in with the old token is logged out, live.
    with pytest.raises(errors.AuthKeyUnregisteredError):
        await b(functions.users.GetUsersRequest([types.InputUserSelf()]))
    again = await other.sign_in(bot_token=revoked.token)
    assert again.id == bot_id


async def test_kurigram_bot_logs_in_with_token(edge_server, edge_db, kurigram_client, clients):
    alice, _a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, "Kuri")
    bot = harness.make_kurigram(edge_server, "abridged", name="kuribot", bot_token=token)
    await bot.start()
    try:
        me = await bot.get_me()
        assert me.id == bot_id and me.is_bot and me.username == username
    finally:
        await bot.stop()


async def _converse(client, peer, got: list, text: str, timeout: float = 10.0) -> str:
    """Send ``text`` to the service bot and wait for its next answer."""
    before = len(got)
    await client.send_message(peer, text)
    await wait_for(lambda: len(got) > before, timeout)
    return got[before].message


async def test_service_bot_creates_and_manages_a_bot_that_echoes(edge_server, edge_db, clients):
    """A user creates a bot by talking to @BotFather (Telethon user), the bot logs in
    with the token it printed (Telethon bot) and echoes; /setcommands, /setprivacy,
    /revoke and /deletebot act on it."""
    from telethon import errors, events, functions, types

    from bots_app.service_bot import ensure_service_bot
    from edge_app.orm_threads import in_thread

    # The listener makes the service bot at start-up; transactional tests empty the
    # tables after each test, so it is made again here.
    await in_thread(ensure_service_bot)()
    _alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    got: list = []
    a.add_event_handler(collect(got, "message"), events.NewMessage(incoming=True))
    resolved = await a(functions.contacts.ResolveUsernameRequest("BotFather"))
    (father,) = resolved.users
    assert father.bot and father.username == "BotFather"

    assert "/newbot" in await _converse(a, father, got, "/start")
    assert "called" in await _converse(a, father, got, "/newbot")
    assert "username" in await _converse(a, father, got, "Echo Bot")
    assert "invalid" in await _converse(a, father, got, "echo")
    username = _username("echo")
    done = await _converse(a, father, got, username)
    assert done.startswith("Done!") and f"@{username}" in done
    token = next(line for line in done.splitlines() if ":" in line and line.split(":")[0].isdigit())
    await _converse(a, father, got, "/newbot")
    await _converse(a, father, got, "Echo Again")
    assert "already taken" in await _converse(a, father, got, username.upper())
    await _converse(a, father, got, "/cancel")

    # The bot logs in with the printed token and echoes what users send it.
    b = await bot_client(edge_server, token, clients)
    bot_me = await b.get_me()
    assert bot_me.username == username

    @b.on(events.NewMessage(incoming=True))
    async def echo(event):
        await event.respond(event.raw_text)

    bot_peer = (await a(functions.contacts.ResolveUsernameRequest(username))).users[0]
    answer = await _converse(a, bot_peer, got, "hello bot")
    assert answer == "hello bot"

    # Commands through the service bot show in the bot's profile.
    assert "Choose a bot" in await _converse(a, father, got, "/setcommands")
    assert "list of commands" in await _converse(a, father, got, f"@{username}")
    assert "Success" in await _converse(a, father, got, "start - Start it\nhelp - Get help")
    full = await a(functions.users.GetFullUserRequest(bot_peer))
    assert [c.command for c in full.full_user.bot_info.commands] == ["start", "help"]
    await _converse(a, father, got, "/setcommands")
    await _converse(a, father, got, f"@{username}")
    assert "Invalid command list" in await _converse(a, father, got, "no dash here")
    await _converse(a, father, got, "/cancel")

    await _converse(a, father, got, "/setprivacy")
    assert "ENABLED" in await _converse(a, father, got, f"@{username}")
    assert "DISABLED" in await _converse(a, father, got, "Disable")
    (seen,) = await a(functions.users.GetUsersRequest([bot_peer]))
    assert seen.bot_chat_history

    assert f"@{username}" in await _converse(a, father, got, "/mybots")

    # /revoke prints a new token and logs the running bot out.
    await _converse(a, father, got, "/revoke")
    revoked = await _converse(a, father, got, f"@{username}")
    new_token = revoked.strip().splitlines()[-1]
    assert new_token != token and new_token.startswith(f"{bot_me.id}:")
    with pytest.raises(errors.AuthKeyUnregisteredError):
        await b(functions.users.GetUsersRequest([types.InputUserSelf()]))

    await _converse(a, father, got, "/deletebot")
    await _converse(a, father, got, f"@{username}")
    assert "gone" in await _converse(a, father, got, "Yes, I am totally sure.")
    other = harness.make_telethon(edge_server, "abridged")
    clients.append(other)
    await other.connect()
    with pytest.raises(errors.AccessTokenInvalidError):
        await other.sign_in(bot_token=new_token)


async def test_bot_cannot_write_first_start_bot_and_catch_up(edge_server, edge_db, clients):
    """A Telethon bot may not write to a user who never started it; messages.startBot
    sends "/start <param>"; the bot sees messages sent while it was offline after
    reconnecting, and the user sees the bot's answers live and after reconnecting."""
    from telethon import errors, events, functions, types
    from telethon.sessions import MemorySession

    from accounts_app.access import user_access_hash

    alice, a, phone, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, _, token = await _new_bot(alice.id, "Greeter")
    session = MemorySession()
    session.set_dc(2, edge_server.host, edge_server.port)
    b = harness.make_telethon(edge_server, "abridged", session=session, receive_updates=True)
    clients.append(b)
    await b.connect()
    await b.sign_in(bot_token=token)
    inbox: list = []
    b.add_event_handler(collect(inbox, "message"), events.NewMessage(incoming=True))

    alice_for_bot = types.InputPeerUser(alice.id, user_access_hash(bot_id, alice.id))
    with pytest.raises(errors.PeerIdInvalidError):
        await b.send_message(alice_for_bot, "hi, I write first")
    other_bot_id, _, _ = await _new_bot(alice.id, "Other")
    with pytest.raises(errors.UserIsBotError):
        await b.send_message(
            types.InputPeerUser(other_bot_id, user_access_hash(bot_id, other_bot_id)), "bot to bot"
        )

    bot_for_alice = types.InputUser(bot_id, user_access_hash(alice.id, bot_id))
    with pytest.raises(errors.StartParamInvalidError):
        await a(
            functions.messages.StartBotRequest(
                bot=bot_for_alice, peer=bot_for_alice, random_id=7, start_param="bad param!"
            )
        )
    got: list = []
    a.add_event_handler(collect(got, "message"), events.NewMessage(incoming=True))
    await a(
        functions.messages.StartBotRequest(
            bot=bot_for_alice, peer=bot_for_alice, random_id=8, start_param="ref-42"
        )
    )
    await wait_for(lambda: any(m.message == "/start ref-42" for m in inbox))
    start = next(m for m in inbox if m.message == "/start ref-42")
    assert start.entities and isinstance(start.entities[0], types.MessageEntityBotCommand)

    # Now the bot may answer; the user sees it live.
    await b.send_message(alice_for_bot, "Welcome!")
    await wait_for(lambda: any(m.message == "Welcome!" for m in got))

    # The bot goes offline; what Alice sends meanwhile reaches it on reconnect.
    state = await b(functions.updates.GetStateRequest())
    await b.disconnect()
    await a.send_message(types.InputPeerUser(bot_id, user_access_hash(alice.id, bot_id)), "while you slept")
    b2 = harness.make_telethon(edge_server, "abridged", session=session)
    clients.append(b2)
    await b2.connect()
    diff = await b2(functions.updates.GetDifferenceRequest(pts=state.pts, date=state.date, qts=0))
    assert [m.message for m in diff.new_messages] == ["while you slept"]

    # Alice reconnects and reads the bot's answer in the history.
    a2 = harness.make_telethon(edge_server, "abridged")
    clients.append(a2)
    await a2.connect()
    await harness.login_telethon(a2, phone)
    history = await a2.get_messages(types.InputPeerUser(bot_id, user_access_hash(alice.id, bot_id)), limit=10)
    assert [m.message for m in history][:3] == ["while you slept", "Welcome!", "/start ref-42"]


async def test_inline_keyboard_callback_answer_edit_and_timeout(edge_server, edge_db, clients):
    """A Telethon bot posts an inline keyboard (callback, URL, switch-inline, copy
    buttons) to a Telethon user; the user presses a button, the bot answers the
    callback query (alert) and edits its message without the keyboard; a press the bot
    ignores times out; data not on any button is refused. The user sees the keyboard
    live and in the history."""
    from telethon import Button, errors, events, functions, types

    from accounts_app.access import user_access_hash

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, _, token = await _new_bot(alice.id, "Buttons")
    b = await bot_client(edge_server, token, clients)
    pressed: list = []

    @b.on(events.NewMessage(incoming=True, pattern="/menu"))
    async def menu(event):
        await event.respond(
            "Pick one",
            buttons=[
                [Button.inline("Yes", b"yes"), Button.inline("Slow", b"slow")],
                [
                    Button.url("Site", "https://example.org"),
                    Button.switch_inline("Share", "q", same_peer=True),
                ],
            ],
        )

    @b.on(events.CallbackQuery())
    async def on_press(event):
        pressed.append((event.sender_id, event.data, event.message_id))
        if event.data == b"yes":
            await event.answer("You chose yes", alert=True)
            await event.edit("Chosen: yes")

    got: list = []
    edits: list = []
    a.add_event_handler(collect(got, "message"), events.NewMessage(incoming=True))
    a.add_event_handler(collect(edits, "message"), events.MessageEdited())
    bot_peer = types.InputPeerUser(bot_id, user_access_hash(alice.id, bot_id))
    await a.send_message(bot_peer, "/menu")
    await wait_for(lambda: any(m.message == "Pick one" for m in got))
    shown = next(m for m in got if m.message == "Pick one")
    rows = shown.reply_markup.rows
    assert [btn.text for btn in rows[0].buttons] == ["Yes", "Slow"]
    assert isinstance(rows[1].buttons[0].type, types.InlineButtonTypeUrl)
    assert rows[1].buttons[0].type.url == "https://example.org"

    # The history shows the same keyboard.
    (again,) = await a.get_messages(bot_peer, ids=[shown.id])
    assert again.reply_markup.rows[0].buttons[0].type.data == b"yes"

    answer = await a(
        functions.messages.GetBotCallbackAnswerRequest(peer=bot_peer, msg_id=shown.id, data=b"yes")
    )
    assert answer.alert and answer.message == "You chose yes"
    assert pressed[0][0] == alice.id and pressed[0][1] == b"yes"
    await wait_for(lambda: any(m.message == "Chosen: yes" for m in edits))
    edited = next(m for m in edits if m.message == "Chosen: yes")
    assert edited.reply_markup is None

    with pytest.raises(errors.DataInvalidError):
        await a(functions.messages.GetBotCallbackAnswerRequest(peer=bot_peer, msg_id=shown.id, data=b"nope"))
    await a.send_message(bot_peer, "/menu")
    await wait_for(lambda: sum(m.message == "Pick one" for m in got) == 2)
    second = [m for m in got if m.message == "Pick one"][-1]
    with pytest.raises(errors.BotResponseTimeoutError):
        await a(functions.messages.GetBotCallbackAnswerRequest(peer=bot_peer, msg_id=second.id, data=b"slow"))
    assert pressed[-1][1] == b"slow"
    # An answer after the timeout finds no query.
    with pytest.raises(errors.QueryIdInvalidError):
        await b(functions.messages.SetBotCallbackAnswerRequest(query_id=12345, cache_time=0, message="late"))


async def test_moderation_bot_in_a_supergroup_privacy_mode_and_join_rules(edge_server, edge_db, clients):
    """A Telethon moderation bot in a supergroup: refused while "join groups" is off;
    as a member with privacy mode on it sees commands but not chatter (live and in
    getChannelDifference); listed by channels.getParticipants(bots); promoted, it
    deletes a message and bans its author on /ban; Telethon users see both live and
    after reconnecting. Its commands show in the group's full info, a keyboard it posts
    in the group is pressed by a member. Bots may not list dialogs (BOT_METHOD_INVALID)."""
    from telethon import Button, errors, events, functions, types

    from accounts_app.access import user_access_hash
    from bots_app import actions
    from edge_app.orm_threads import in_thread

    alice, a, alice_phone, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, _, token = await _new_bot(alice.id, "Mod")

    def iu(viewer, target_id):
        return types.InputUser(target_id, user_access_hash(viewer.id, target_id))

    created = await a(functions.channels.CreateChannelRequest(title="Mods", about="", megagroup=True))
    channel = created.chats[0]
    ic = types.InputChannel(channel.id, channel.access_hash)
    await a(functions.channels.InviteToChannelRequest(ic, [iu(alice, bob.id)]))

    await in_thread(actions.do_set_join_groups)(alice.id, bot_id, False)
    with pytest.raises(errors.BotGroupsBlockedError):
        await a(functions.channels.InviteToChannelRequest(ic, [iu(alice, bot_id)]))
    await in_thread(actions.do_set_join_groups)(alice.id, bot_id, True)

    bot = await bot_client(edge_server, token, clients)
    seen: list = []
    bot.add_event_handler(collect(seen, "message"), events.NewMessage(incoming=True))

    @bot.on(events.NewMessage(incoming=True, pattern="/ban"))
    async def ban(event):
        target = await event.get_reply_message()
        chat = await event.get_input_chat()
        await bot.delete_messages(chat, [target.id])
        author = await event.client.get_input_entity(target.sender_id)
        rights = types.ChatBannedRights(until_date=None, view_messages=True)
        await bot(functions.channels.EditBannedRequest(chat, author, rights))
        await event.respond("Banned.")

    await a(functions.channels.InviteToChannelRequest(ic, [iu(alice, bot_id)]))
    parts = await a(
        functions.channels.GetParticipantsRequest(
            ic, types.ChannelParticipantsBots(), offset=0, limit=10, hash=0
        )
    )
    assert [p.user_id for p in parts.participants] == [bot_id]

    bob_ic = types.InputPeerChannel(channel.id, channel.access_hash)
    await b.send_message(bob_ic, "hello everyone")
    await b.send_message(bob_ic, "/ping")
    await wait_for(lambda: any(m.message == "/ping" for m in seen))
    assert not any(m.message == "hello everyone" for m in seen)

    # Group-scoped commands show in the group's full info; a keyboard in the group
    # is pressed by Bob and answered by the bot.
    await bot(
        functions.bots.SetBotCommandsRequest(
            scope=types.BotCommandScopeChats(),
            lang_code="",
            commands=[types.BotCommand("ban", "Ban the author")],
        )
    )
    full = await a(functions.channels.GetFullChannelRequest(ic))
    (info,) = full.full_chat.bot_info
    assert info.user_id == bot_id and [c.command for c in info.commands] == ["ban"]
    assert bot_id in [u.id for u in full.users]

    @bot.on(events.CallbackQuery())
    async def on_press(event):
        await event.answer(f"hi {event.sender_id}")

    got_b: list = []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage(incoming=True))
    await bot.send_message(
        await bot.get_input_entity(types.PeerChannel(channel.id)),
        "Rules",
        buttons=[Button.inline("Agree", b"ok")],
    )
    await wait_for(lambda: any(m.message == "Rules" for m in got_b))
    rules = next(m for m in got_b if m.message == "Rules")
    pressed = await b(
        functions.messages.GetBotCallbackAnswerRequest(peer=bob_ic, msg_id=rules.id, data=b"ok")
    )
    assert pressed.message == f"hi {bob.id}"

    with pytest.raises(errors.BotMethodInvalidError):
        await bot(
            functions.messages.GetDialogsRequest(
                offset_date=None, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=10, hash=0
            )
        )

    # Promoted, the bot sees everything and moderates.
    await a(
        functions.channels.EditAdminRequest(
            ic, iu(alice, bot_id), types.ChatAdminRights(delete_messages=True, ban_users=True), rank="mod"
        )
    )
    deleted: list = []
    a.add_event_handler(collect(deleted, "deleted_ids"), events.MessageDeleted())
    spam = await b.send_message(bob_ic, "buy cheap stuff")
    await wait_for(lambda: any(m.message == "buy cheap stuff" for m in seen))
    got_a: list = []
    a.add_event_handler(collect(got_a, "message"), events.NewMessage(incoming=True))
    await a.send_message(types.InputPeerChannel(channel.id, channel.access_hash), "/ban", reply_to=spam.id)
    await wait_for(lambda: any(spam.id in ids for ids in deleted))
    await wait_for(lambda: any(m.message == "Banned." for m in got_a))

    kicked = await a(
        functions.channels.GetParticipantsRequest(
            ic, types.ChannelParticipantsKicked(q=""), offset=0, limit=10, hash=0
        )
    )
    assert bob.id in [p.peer.user_id for p in kicked.participants]
    with pytest.raises(errors.RPCError):
        await b.send_message(bob_ic, "still here?")

    # Alice reconnects: the spam is gone from the history, the bot's answer is there.
    a2 = harness.make_telethon(edge_server, "abridged")
    clients.append(a2)
    await a2.connect()
    await harness.login_telethon(a2, alice_phone)
    history = await a2.get_messages(types.InputPeerChannel(channel.id, channel.access_hash), limit=20)
    texts = [m.message for m in history if isinstance(m, types.Message)]
    assert "buy cheap stuff" not in texts and "Banned." in texts and "hello everyone" in texts


async def test_inline_bot_answers_a_users_inline_query(edge_server, edge_db, clients):
    """A Telethon inline bot answers "@bot query" from a Telethon user in a private chat
    with another user; the chosen result arrives "via @bot" for both, with the result's
    keyboard; the bot gets updateBotInlineSend (feedback on); a bot without inline mode
    answers BOT_INLINE_DISABLED; results stay the asker's."""
    from telethon import Button, errors, events, functions, types

    from accounts_app.access import user_access_hash
    from bots_app import actions
    from edge_app.orm_threads import in_thread

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, _, token = await _new_bot(alice.id, "Finder")
    bot_user = types.InputUser(bot_id, user_access_hash(alice.id, bot_id))
    bob_peer = types.InputPeerUser(bob.id, user_access_hash(alice.id, bob.id))
    with pytest.raises(errors.BotInlineDisabledError):
        await a(
            functions.messages.GetInlineBotResultsRequest(bot=bot_user, peer=bob_peer, query="x", offset="")
        )
    await in_thread(actions.do_set_inline)(alice.id, bot_id, "Search...")
    await in_thread(actions.do_set_inline_feedback)(alice.id, bot_id, True)

    bot = await bot_client(edge_server, token, clients)
    feedback: list = []

    @bot.on(events.InlineQuery())
    async def answer(event):
        builder = event.builder
        await event.answer(
            [
                builder.article(
                    "Upper", text=event.text.upper(), buttons=[Button.url("Docs", "https://example.org")]
                ),
                builder.article("Lower", text=event.text.lower()),
            ],
            next_offset="2",
        )

    @bot.on(events.Raw(types.UpdateBotInlineSend))
    async def on_sent(update):
        feedback.append(update)

    (me_for_alice,) = await a(functions.users.GetUsersRequest([bot_user]))
    assert me_for_alice.bot_inline_placeholder == "Search..."
    results = await a(
        functions.messages.GetInlineBotResultsRequest(
            bot=bot_user, peer=bob_peer, query="Hi There", offset=""
        )
    )
    assert [r.title for r in results.results] == ["Upper", "Lower"]
    assert results.next_offset == "2" and [u.id for u in results.users] == [bot_id]
    assert results.results[0].send_message.message == "HI THERE"

    got_b: list = []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage(incoming=True))
    sent = await a(
        functions.messages.SendInlineBotResultRequest(
            peer=bob_peer, query_id=results.query_id, id=results.results[0].id, random_id=99
        )
    )
    mine = next(u.message for u in sent.updates if isinstance(u, types.UpdateNewMessage))
    assert mine.via_bot_id == bot_id and mine.message == "HI THERE"
    await wait_for(lambda: any(m.message == "HI THERE" for m in got_b))
    theirs = next(m for m in got_b if m.message == "HI THERE")
    assert theirs.via_bot_id == bot_id
    assert theirs.reply_markup.rows[0].buttons[0].type.url == "https://example.org"
    await wait_for(lambda: feedback)
    assert feedback[0].user_id == alice.id and feedback[0].id == results.results[0].id

    # Bob cannot send Alice's results; an unknown result id is refused.
    with pytest.raises(errors.QueryIdInvalidError):
        await b(
            functions.messages.SendInlineBotResultRequest(
                peer=types.InputPeerUser(alice.id, user_access_hash(bob.id, alice.id)),
                query_id=results.query_id,
                id=results.results[0].id,
                random_id=100,
            )
        )
    with pytest.raises(errors.ResultIdInvalidError):
        await a(
            functions.messages.SendInlineBotResultRequest(
                peer=bob_peer, query_id=results.query_id, id="nope", random_id=101
            )
        )


async def test_kurigram_bot_echoes_and_answers_callbacks(edge_server, edge_db, clients):
    """A Kurigram bot (token login, updates on) echoes a Telethon user's message with an
    inline keyboard and answers the button's callback query; the user sees the
    keyboard and gets the answer."""
    from pyrogram import filters
    from pyrogram.handlers import CallbackQueryHandler, MessageHandler
    from pyrogram.types import InlineKeyboardButton, InlineKeyboardMarkup
    from telethon import events, functions, types

    from accounts_app.access import user_access_hash

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, _, token = await _new_bot(alice.id, "Kuri")
    bot = harness.make_kurigram(edge_server, "abridged", name="kuriecho", bot_token=token, no_updates=False)
    presses: list = []

    async def echo(client, message):
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Again", callback_data="again")]])
        await client.send_message(message.chat.id, f"echo: {message.text}", reply_markup=keyboard)

    async def on_press(client, query):
        presses.append(query.data)
        await query.answer(f"pressed {query.data}", show_alert=False)

    bot.add_handler(MessageHandler(echo, filters.private & filters.text))
    bot.add_handler(CallbackQueryHandler(on_press))
    await bot.start()
    try:
        got: list = []
        a.add_event_handler(collect(got, "message"), events.NewMessage(incoming=True))
        bot_peer = types.InputPeerUser(bot_id, user_access_hash(alice.id, bot_id))
        await a.send_message(bot_peer, "ping")
        await wait_for(lambda: any(m.message == "echo: ping" for m in got), 15)
        shown = next(m for m in got if m.message == "echo: ping")
        assert shown.reply_markup.rows[0].buttons[0].type.data == b"again"
        answer = await a(
            functions.messages.GetBotCallbackAnswerRequest(peer=bot_peer, msg_id=shown.id, data=b"again")
        )
        assert answer.message == "pressed again" and not answer.alert
        assert presses == ["again"]
    finally:
        await bot.stop()


async def test_start_bot_in_a_group_adds_it_and_sends_the_start_command(edge_server, edge_db, clients):
    """messages.startBot with a supergroup as peer (a startgroup deep link, Telethon
    user): the bot joins and gets "/start@bot param" there (Telethon bot)."""
    from telethon import events, functions, types

    from accounts_app.access import user_access_hash

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, "Grouper")
    bot = await bot_client(edge_server, token, clients)
    seen: list = []
    bot.add_event_handler(collect(seen, "message"), events.NewMessage(incoming=True))
    created = await a(functions.channels.CreateChannelRequest(title="Start here", about="", megagroup=True))
    channel = created.chats[0]
    peer = types.InputPeerChannel(channel.id, channel.access_hash)
    answer = await a(
        functions.messages.StartBotRequest(
            bot=types.InputUser(bot_id, user_access_hash(alice.id, bot_id)),
            peer=peer,
            random_id=5,
            start_param="grp",
        )
    )
    sent = [u.message for u in answer.updates if isinstance(u, types.UpdateNewChannelMessage)]
    assert sent[-1].message == f"/start@{username} grp"
    await wait_for(lambda: any(m.message == f"/start@{username} grp" for m in seen))
    parts = await a(
        functions.channels.GetParticipantsRequest(
            types.InputChannel(channel.id, channel.access_hash), types.ChannelParticipantsBots(), 0, 10, 0
        )
    )
    assert [p.user_id for p in parts.participants] == [bot_id]


async def test_bot_catches_up_a_long_gap_in_one_channel_difference(edge_server, edge_db, clients):
    """A Telethon bot (privacy off) that missed 150 messages of its group gets them all
    from one getChannelDifference with a bot-sized limit, where a user's page would be
    "too long"."""
    from telethon import functions, types

    from accounts_app.access import user_access_hash
    from bots_app import actions
    from edge_app.orm_threads import in_thread

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, _, token = await _new_bot(alice.id, "Reader")
    await in_thread(actions.do_set_privacy)(alice.id, bot_id, False)
    created = await a(functions.channels.CreateChannelRequest(title="Busy", about="", megagroup=True))
    channel = created.chats[0]
    ic = types.InputChannel(channel.id, channel.access_hash)
    await a(
        functions.channels.InviteToChannelRequest(
            ic, [types.InputUser(bot_id, user_access_hash(alice.id, bot_id))]
        )
    )
    bot = await bot_client(edge_server, token, clients, receive_updates=False)
    start = (await a(functions.channels.GetFullChannelRequest(ic))).full_chat.pts
    peer = types.InputPeerChannel(channel.id, channel.access_hash)
    for i in range(150):
        await a.send_message(peer, f"m{i}")

    def request(client_limit: int):
        return functions.updates.GetChannelDifferenceRequest(
            channel=ic, filter=types.ChannelMessagesFilterEmpty(), pts=start, limit=client_limit
        )

    diff = await bot(request(100000))
    assert isinstance(diff, types.updates.ChannelDifference) and diff.final
    assert [m.message for m in diff.new_messages] == [f"m{i}" for i in range(150)]
    assert isinstance(await a(request(100000)), types.updates.ChannelDifferenceTooLong)


async def test_operator_switching_a_bot_off_logs_its_live_session_out(edge_server, edge_db, clients):
    """The console's "switch off" action (Django admin, in this process) reaches the
    Telethon bot connected to the listener: its next call is unauthorized, and its token
    is refused until switched back on."""
    import asyncio

    from asgiref.sync import sync_to_async
    from django.contrib.auth.models import User as Staff
    from django.test import Client
    from telethon import errors, functions, types

    alice, _a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, _, token = await _new_bot(alice.id, "Switch")
    bot = await bot_client(edge_server, token, clients)
    assert (await bot(functions.users.GetUsersRequest([types.InputUserSelf()])))[0].id == bot_id

    def operate(action: str) -> int:
        import secrets

        name = f"op{secrets.token_hex(4)}"
        Staff.objects.create_superuser(name, f"{name}@example.org", "pw-12345678")
        browser = Client()
        browser.login(username=name, password="pw-12345678")
        return browser.post(
            "/admin/bots_app/bot/", {"action": action, "_selected_action": [bot_id]}
        ).status_code

    assert await sync_to_async(operate)("deactivate") == 302
    # The listener hears it over Redis; until then a call may still be served.
    for _ in range(50):
        try:
            await bot(functions.users.GetUsersRequest([types.InputUserSelf()]))
        except errors.AuthKeyUnregisteredError:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the switched-off bot is still logged in")
    other = harness.make_telethon(edge_server, "abridged")
    clients.append(other)
    await other.connect()
    with pytest.raises(errors.AccessTokenInvalidError):
        await other.sign_in(bot_token=token)
    assert await sync_to_async(operate)("reactivate") == 302
    assert (await other.sign_in(bot_token=token)).id == bot_id
