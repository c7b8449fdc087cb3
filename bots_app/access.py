"""Permission-checked lookups for the bots.* handlers: who the caller is acting for
and which command scope a client named."""

from __future__ import annotations

from accounts_app.access import check_input_user
from channels_app.access import channel_ref
from edge_app.orm_threads import in_thread
from tl import types
from tl.errors import BotInvalidError, PeerIdInvalidError, UserBotRequiredError

from . import scopes
from .models import Bot


@in_thread
def _bot_row(user_id: int) -> Bot | None:
    return Bot.objects.select_related("user").filter(user_id=user_id, user__deleted=False).first()


async def calling_bot(me: int) -> Bot:
    """The caller, which must be a bot (USER_BOT_REQUIRED)."""
    bot = await _bot_row(me)
    if bot is None:
        raise UserBotRequiredError()
    return bot


async def acting_bot(me: int, input_bot) -> tuple[int | None, int]:
    """``(owner filter, bot id)`` for methods a bot calls on itself or its owner calls
    naming it (``bot`` given): the owner filter is None when the bot acts itself."""
    if input_bot is None:
        await calling_bot(me)
        return None, me
    bot_id = check_input_user(me, input_bot)
    if bot_id == me:
        await calling_bot(me)
        return None, me
    bot = await _bot_row(bot_id)
    if bot is None or bot.owner_id != me:
        raise BotInvalidError()
    return me, bot_id


def _peer_key(me: int, peer) -> str:
    if isinstance(peer, types.InputPeerSelf | types.InputPeerUser):
        return scopes.peer_key("u", check_input_user(me, peer))
    try:
        channel_id, _ = channel_ref(peer)
    except Exception as exc:
        raise PeerIdInvalidError() from exc
    return scopes.peer_key("c", channel_id)


def scope_key(me: int, scope) -> str:
    if isinstance(scope, types.BotCommandScopeDefault):
        return scopes.DEFAULT
    if isinstance(scope, types.BotCommandScopeUsers):
        return scopes.USERS
    if isinstance(scope, types.BotCommandScopeChats):
        return scopes.CHATS
    if isinstance(scope, types.BotCommandScopeChatAdmins):
        return scopes.CHAT_ADMINS
    if isinstance(scope, types.BotCommandScopePeer):
        return scopes.peer(_peer_key(me, scope.peer))
    if isinstance(scope, types.BotCommandScopePeerAdmins):
        return scopes.peer_admins(_peer_key(me, scope.peer))
    if isinstance(scope, types.BotCommandScopePeerUser):
        return scopes.peer_user(_peer_key(me, scope.peer), check_input_user(me, scope.user_id))
    raise PeerIdInvalidError()
