"""Telling viewers that a pending link preview is ready: updateChannelWebPage through
the channel's fan-out (channels_app.push), updateWebPage to both sides of a private
chat (with the viewer's current pts and pts_count 0: the page takes no pts)."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app.updates import get_state
from channels_app import notify
from edge_app.push import push_to_users, renderer
from message_core.clock import now

from . import tl_convert

PRIVATE_WEB_PAGE = "webpages.private"


async def announce(page: dict, chats: list[dict]) -> None:
    users: set[int] = set()
    for c in chats:
        if c["kind"] == "c":
            await notify.publish("channel.web_page", {"channel_id": c["chat_id"], "page": page})
        else:
            users |= {c["chat_id"], c["peer_id"]}
    if users:
        await push_to_users(sorted(users), PRIVATE_WEB_PAGE, {"page": page})


@renderer(PRIVATE_WEB_PAGE)
async def _render_private(payload: dict, viewer_id: int):
    state = await sync_to_async(get_state)(viewer_id)
    return tl_convert.private_web_page_updates_to_tl(payload["page"], state.pts, now())
