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


__all__ = ["_new_bot", "bot_client", "collect", "wait_for"]
