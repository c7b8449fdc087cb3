"""upload.saveFilePart / upload.saveBigFilePart: parts of a file a later request
(sendMedia, uploadMedia, a chat or profile photo) names by its id."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core.context import viewer
from tl import functions

from . import actions


@rpc(functions.upload.SaveFilePart)
async def save_file_part(ctx, req: functions.upload.SaveFilePart):
    me = viewer(ctx)
    await actions.do_save_part(me, req.file_id, req.file_part, req.bytes)
    return True


@rpc(functions.upload.SaveBigFilePart)
async def save_big_file_part(ctx, req: functions.upload.SaveBigFilePart):
    me = viewer(ctx)
    await actions.do_save_part(me, req.file_id, req.file_part, req.bytes, req.file_total_parts)
    return True
