"""stickers.*: the owner's sticker sets (thin handlers over ``stickers_app.sets``)."""

from __future__ import annotations

from edge_app.orm_threads import in_thread
from edge_app.registry import rpc
from message_core.context import own_session, viewer
from tl import functions, types
from tl.errors import StickersetInvalidError, StickersTooMuchError, UserIdInvalidError

from .. import catalog, sets
from .. import tl_convert as stickers_tl

SOFTWARE_MAX = 64


def _ref(s):
    ref = stickers_tl.set_ref(s)
    if ref is None or ref.special:
        raise StickersetInvalidError()
    return ref


def _answer(full: dict, me: int):
    return stickers_tl.messages_sticker_set_to_tl(full, me)


@rpc(functions.stickers.CreateStickerSet)
async def create_sticker_set(ctx, req: functions.stickers.CreateStickerSet):
    me = viewer(ctx)
    u = req.user_id
    if not (isinstance(u, types.InputUserSelf) or (isinstance(u, types.InputUser) and u.user_id == me)):
        raise UserIdInvalidError()
    if len(req.stickers) > max(sets.STICKERS_MAX.values()):
        raise StickersTooMuchError()
    kind = "emojis" if req.emojis else ("masks" if req.masks else "stickers")
    full = await sets.do_create_set(
        me, req.title, req.short_name, [stickers_tl.new_sticker(i) for i in req.stickers], kind=kind,
        text_color=bool(req.text_color), thumb=stickers_tl.doc_ref(req.thumb) if req.thumb else None,
        software=(req.software or "")[:SOFTWARE_MAX], exclude=own_session(ctx),
    )  # fmt: skip
    return _answer(full, me)


@rpc(functions.stickers.AddStickerToSet)
async def add_sticker_to_set(ctx, req: functions.stickers.AddStickerToSet):
    me = viewer(ctx)
    full = await sets.do_add_sticker(
        me, _ref(req.stickerset), stickers_tl.new_sticker(req.sticker), exclude=own_session(ctx)
    )
    return _answer(full, me)


@rpc(functions.stickers.ReplaceSticker)
async def replace_sticker(ctx, req: functions.stickers.ReplaceSticker):
    me = viewer(ctx)
    full = await sets.do_replace_sticker(
        me,
        stickers_tl.doc_ref(req.sticker),
        stickers_tl.new_sticker(req.new_sticker),
        exclude=own_session(ctx),
    )
    return _answer(full, me)


@rpc(functions.stickers.RemoveStickerFromSet)
async def remove_sticker_from_set(ctx, req: functions.stickers.RemoveStickerFromSet):
    me = viewer(ctx)
    return _answer(
        await sets.do_remove_sticker(me, stickers_tl.doc_ref(req.sticker), exclude=own_session(ctx)), me
    )


@rpc(functions.stickers.ChangeStickerPosition)
async def change_sticker_position(ctx, req: functions.stickers.ChangeStickerPosition):
    me = viewer(ctx)
    full = await sets.do_move_sticker(
        me, stickers_tl.doc_ref(req.sticker), req.position, exclude=own_session(ctx)
    )
    return _answer(full, me)


@rpc(functions.stickers.ChangeSticker)
async def change_sticker(ctx, req: functions.stickers.ChangeSticker):
    me = viewer(ctx)
    full = await sets.do_change_sticker(
        me, stickers_tl.doc_ref(req.sticker), emoji_text=req.emoji,
        mask_coords=stickers_tl.mask_coords_from_tl(req.mask_coords), keywords=req.keywords, exclude=own_session(ctx),
    )  # fmt: skip
    return _answer(full, me)


@rpc(functions.stickers.SetStickerSetThumb)
async def set_sticker_set_thumb(ctx, req: functions.stickers.SetStickerSetThumb):
    me = viewer(ctx)
    full = await sets.do_set_thumb(
        me, _ref(req.stickerset), thumb=stickers_tl.doc_ref(req.thumb) if req.thumb else None,
        thumb_document_id=req.thumb_document_id, exclude=own_session(ctx),
    )  # fmt: skip
    return _answer(full, me)


@rpc(functions.stickers.RenameStickerSet)
async def rename_sticker_set(ctx, req: functions.stickers.RenameStickerSet):
    me = viewer(ctx)
    return _answer(
        await sets.do_rename_set(me, _ref(req.stickerset), req.title, exclude=own_session(ctx)), me
    )


@rpc(functions.stickers.DeleteStickerSet)
async def delete_sticker_set(ctx, req: functions.stickers.DeleteStickerSet):
    me = viewer(ctx)
    await sets.do_delete_set(me, _ref(req.stickerset), exclude=own_session(ctx))
    return True


@rpc(functions.stickers.CheckShortName)
async def check_short_name(ctx, req: functions.stickers.CheckShortName):
    viewer(ctx)
    await sets.check_short_name(req.short_name)
    return True


@rpc(functions.stickers.SuggestShortName)
async def suggest_short_name(ctx, req: functions.stickers.SuggestShortName):
    viewer(ctx)
    return types.stickers.SuggestedShortName(
        short_name=await sets.suggest_short_name(req.title[: sets.TITLE_MAX])
    )


@rpc(functions.messages.GetStickerSet)
async def get_sticker_set(ctx, req: functions.messages.GetStickerSet):
    """By id and access hash or short name; notModified when the client's hash is the
    set's. Telegram's built-in sets (animated emoji, dice...) are the operator's set
    put in their place (import_sticker_set --special), else empty."""
    me = viewer(ctx)
    ref = stickers_tl.set_ref(req.stickerset)
    if ref is None:
        raise StickersetInvalidError()
    if ref.special:
        full = await in_thread(catalog.special_full)(ref, me)
    else:
        full = await in_thread(lambda: catalog.full_set(catalog.find_row(ref), me))()
    if req.hash and req.hash == full["set"]["hash"]:
        return types.messages.StickerSetNotModified()
    return _answer(full, me)
