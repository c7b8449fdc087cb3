"""The bots of a group as its members see them in channels.getFullChannel
(``channelFull.bot_info``): each bot's description and the commands of the most
specific scope that applies to the viewer in that group (installed into channels_app
at start-up)."""

from __future__ import annotations

from edge_app.orm_threads import in_thread

from . import actions, scopes, tl_convert
from .models import Bot

BOTS_SHOWN_MAX = 50


@in_thread
def _render(channel_id: int, bot_ids: list[int], viewer_id: int, viewer_is_admin: bool) -> list:
    bots = Bot.objects.select_related("user").filter(
        user_id__in=bot_ids[:BOTS_SHOWN_MAX], user__deleted=False
    )
    keys = scopes.group_scopes(channel_id, viewer_id, viewer_is_admin)
    return [tl_convert.bot_info_to_tl(b, actions.commands_for(b.user_id, keys)) for b in bots]


async def bot_infos(channel_id: int, bot_ids: list[int], viewer_id: int, viewer_is_admin: bool) -> list:
    return await _render(channel_id, bot_ids, viewer_id, viewer_is_admin) if bot_ids else []
