"""Empty dialog lists until the channel module serves them.

Telegram Desktop, Telethon (``iter_dialogs``) and Kurigram load these on their first
screen. Delete this module (and its import in ``accounts_app.apps``) when
``channels_app`` registers the same methods.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import tl_convert, updates
from accounts_app.rpc.context import viewer_id
from edge_app.registry import rpc
from tl import functions


@rpc(functions.messages.GetDialogs)
async def get_dialogs(ctx, req: functions.messages.GetDialogs):
    return tl_convert.empty_dialogs_to_tl()


@rpc(functions.messages.GetPinnedDialogs)
async def get_pinned_dialogs(ctx, req: functions.messages.GetPinnedDialogs):
    state = await sync_to_async(updates.get_state)(viewer_id(ctx))
    return tl_convert.empty_peer_dialogs_to_tl(state.pts, state.date)


@rpc(functions.messages.GetSavedDialogs, functions.messages.GetPinnedSavedDialogs)
async def get_saved_dialogs(ctx, req):
    return tl_convert.empty_saved_dialogs_to_tl()
