"""``chat_id`` / ``from_chat_id`` given as ``@username`` of a public group or channel,
turned into the Bot API's id of it before the method runs (the methods then treat it as
a number); a user's @username is left to the methods, which resolve users."""

from __future__ import annotations

from .methods import GROUP_BASE
from .params import Params

USERNAME_MAX = 32
CHAT_FIELDS = ("chat_id", "from_chat_id")


async def resolve_public_chats(params: Params, bot_id: int) -> None:
    from channels_app.actions.usernames import resolve_public_channel

    for field in CHAT_FIELDS:
        value = params.values.get(field)
        if not isinstance(value, str):
            continue
        name = value.strip()
        if not name.startswith("@") or not 1 < len(name) <= USERNAME_MAX + 1:
            continue
        found = await resolve_public_channel(bot_id, name[1:].lower())
        if found is not None:
            params.values[field] = -GROUP_BASE - found[0]["id"]
