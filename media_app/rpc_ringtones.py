"""account.*Ringtone* (media_app.ringtones)."""

from __future__ import annotations

from edge_app.push import push_to_users, renderer
from edge_app.registry import rpc
from message_core.context import own_session, viewer
from tl import functions, types
from tl.errors import DocumentInvalidError, RingtoneInvalidError

from . import actions, ringtones, tl_convert

SAVED_RINGTONES = "media.saved_ringtones"


async def _changed(ctx, me: int) -> None:
    # Telegram tells the user's other sessions to refetch the list.
    await push_to_users([me], SAVED_RINGTONES, {}, exclude=own_session(ctx))


@rpc(functions.account.GetSavedRingtones)
async def get_saved_ringtones(ctx, req: functions.account.GetSavedRingtones):
    docs = await ringtones.saved_ringtones(viewer(ctx))
    return tl_convert.saved_ringtones_to_tl(docs, ringtones.list_hash(docs), req.hash)


@rpc(functions.account.UploadRingtone)
async def upload_ringtone(ctx, req: functions.account.UploadRingtone):
    me = viewer(ctx)
    doc = await ringtones.do_upload_ringtone(
        me, tl_convert.upload_ref(req.file), req.file_name, req.mime_type
    )
    await _changed(ctx, me)
    return tl_convert.document_to_tl(doc)


@rpc(functions.account.SaveRingtone)
async def save_ringtone(ctx, req: functions.account.SaveRingtone):
    me = viewer(ctx)
    if not isinstance(req.id, types.InputDocument):
        raise RingtoneInvalidError()
    try:
        doc = await actions.get_document(req.id.id, req.id.access_hash, bytes(req.id.file_reference))
    except DocumentInvalidError:
        raise RingtoneInvalidError() from None
    if await ringtones.do_save_ringtone(me, doc, unsave=bool(req.unsave)):
        await _changed(ctx, me)
    return True


@renderer(SAVED_RINGTONES)
async def _render_saved_ringtones(payload: dict, viewer_id: int):
    return tl_convert.saved_ringtones_update_to_tl()
