"""Pushes to bots' sessions: the queries users send them (rendered per bot)."""

from __future__ import annotations

import time

from edge_app.push import renderer
from message_core.context import chats_for, users_for

from . import callbacks, inline, tl_convert, webapps


@renderer(callbacks.PUSH_KIND)
async def render_callback_query(payload: dict, viewer_user_id: int):
    users = await users_for(viewer_user_id, [int(payload["user_id"])])
    channel_id = payload["peer"].get("channel_id")
    chats = await chats_for(viewer_user_id, [int(channel_id)]) if channel_id else []
    update = tl_convert.callback_query_update_to_tl(payload)
    return tl_convert.pushed_updates_to_tl(update, users, chats, int(time.time()))


@renderer(inline.PUSH_KIND)
async def render_inline_query(payload: dict, viewer_user_id: int):
    users = await users_for(viewer_user_id, [int(payload["user_id"])])
    update = tl_convert.inline_query_update_to_tl(payload)
    return tl_convert.pushed_updates_to_tl(update, users, [], int(time.time()))


@renderer(inline.SEND_PUSH_KIND)
async def render_inline_send(payload: dict, viewer_user_id: int):
    users = await users_for(viewer_user_id, [int(payload["user_id"])])
    update = tl_convert.inline_send_update_to_tl(payload)
    return tl_convert.pushed_updates_to_tl(update, users, [], int(time.time()))


@renderer(webapps.RESULT_SENT_PUSH_KIND)
async def render_web_view_result_sent(payload: dict, viewer_user_id: int):
    update = tl_convert.web_view_result_sent_update_to_tl(payload)
    return tl_convert.pushed_updates_to_tl(update, [], [], int(time.time()))
