"""Typing in a private chat: pushed to the other side only, never stored."""

from __future__ import annotations

from edge_app.push import push_to_users, renderer
from tl.runtime import Reader

from . import tl_convert

TYPING_KIND = "private.typing"


async def push_typing(me: int, peer: int, action_hex: str) -> None:
    if peer != me:
        await push_to_users([peer], TYPING_KIND, {"user_id": me, "action": action_hex})


@renderer(TYPING_KIND)
async def render_typing(payload: dict, viewer_user_id: int):
    action = Reader(bytes.fromhex(payload["action"])).read_object()
    return tl_convert.typing_update_to_tl(int(payload["user_id"]), action)
