"""The user's sticker panels: installed, archived and ordered sets per kind, recent and
faved stickers, saved GIFs (thin handlers over ``stickers_app.library``)."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core.context import own_session, viewer
from tl import functions, types
from tl.errors import GifIdInvalidError, LimitInvalidError, StickerIdInvalidError, StickersetInvalidError

from .. import hashing, library
from .. import tl_convert as stickers_tl

TOGGLE_MAX = 200


def _kind(req) -> str:
    return (
        "emojis" if getattr(req, "emojis", None) else ("masks" if getattr(req, "masks", None) else "stickers")
    )


def _ref(s):
    ref = stickers_tl.set_ref(s)
    if ref is None or ref.special:
        raise StickersetInvalidError()
    return ref


@rpc(functions.messages.InstallStickerSet)
async def install_sticker_set(ctx, req: functions.messages.InstallStickerSet):
    me = viewer(ctx)
    moved, covers = await library.do_install(me, _ref(req.stickerset), archived=bool(req.archived),
                                             exclude=own_session(ctx))  # fmt: skip
    return stickers_tl.install_result_to_tl(moved, covers, me)


@rpc(functions.messages.UninstallStickerSet)
async def uninstall_sticker_set(ctx, req: functions.messages.UninstallStickerSet):
    me = viewer(ctx)
    await library.do_uninstall(me, _ref(req.stickerset), exclude=own_session(ctx))
    return True


@rpc(functions.messages.ToggleStickerSets)
async def toggle_sticker_sets(ctx, req: functions.messages.ToggleStickerSets):
    me = viewer(ctx)
    if len(req.stickersets) > TOGGLE_MAX:
        raise LimitInvalidError()
    await library.do_toggle(
        me, [_ref(s) for s in req.stickersets], uninstall=bool(req.uninstall), archive=bool(req.archive),
        unarchive=bool(req.unarchive), exclude=own_session(ctx),
    )  # fmt: skip
    return True


@rpc(functions.messages.ReorderStickerSets)
async def reorder_sticker_sets(ctx, req: functions.messages.ReorderStickerSets):
    me = viewer(ctx)
    await library.do_reorder(me, _kind(req), list(req.order), exclude=own_session(ctx))
    return True


@rpc(
    functions.messages.GetAllStickers, functions.messages.GetMaskStickers, functions.messages.GetEmojiStickers
)
async def get_all_stickers(ctx, req):
    me = viewer(ctx)
    kind = {
        functions.messages.GetAllStickers: "stickers",
        functions.messages.GetMaskStickers: "masks",
        functions.messages.GetEmojiStickers: "emojis",
    }[type(req)]
    h, sets = await library.installed_sets(me, kind)
    if hashing.unchanged(req.hash, h):
        return types.messages.AllStickersNotModified()
    return stickers_tl.all_stickers_to_tl(h, sets, me)


@rpc(functions.messages.GetArchivedStickers)
async def get_archived_stickers(ctx, req: functions.messages.GetArchivedStickers):
    me = viewer(ctx)
    if req.limit < 0:
        raise LimitInvalidError()
    count, sets, covers = await library.archived_sets(me, _kind(req), req.offset_id, req.limit)
    return stickers_tl.archived_to_tl(count, sets, covers, me)


@rpc(functions.messages.GetRecentStickers)
async def get_recent_stickers(ctx, req: functions.messages.GetRecentStickers):
    me = viewer(ctx)
    h, docs, dates, emoji = await library.user_list(me, "attached" if req.attached else "recent")
    if hashing.unchanged(req.hash, h):
        return types.messages.RecentStickersNotModified()
    return stickers_tl.recent_to_tl(h, docs, dates, emoji)


@rpc(functions.messages.SaveRecentSticker)
async def save_recent_sticker(ctx, req: functions.messages.SaveRecentSticker):
    me = viewer(ctx)
    d = stickers_tl.doc_ref(req.id, StickerIdInvalidError)
    await library.do_save(me, "attached" if req.attached else "recent", d.id, d.access_hash,
                          remove=bool(req.unsave), exclude=own_session(ctx))  # fmt: skip
    return True


@rpc(functions.messages.ClearRecentStickers)
async def clear_recent_stickers(ctx, req: functions.messages.ClearRecentStickers):
    me = viewer(ctx)
    await library.do_clear(me, "attached" if req.attached else "recent", exclude=own_session(ctx))
    return True


@rpc(functions.messages.GetFavedStickers)
async def get_faved_stickers(ctx, req: functions.messages.GetFavedStickers):
    me = viewer(ctx)
    h, docs, _, emoji = await library.user_list(me, "faved")
    if hashing.unchanged(req.hash, h):
        return types.messages.FavedStickersNotModified()
    return stickers_tl.faved_to_tl(h, docs, emoji)


@rpc(functions.messages.FaveSticker)
async def fave_sticker(ctx, req: functions.messages.FaveSticker):
    me = viewer(ctx)
    d = stickers_tl.doc_ref(req.id, StickerIdInvalidError)
    await library.do_save(me, "faved", d.id, d.access_hash, remove=bool(req.unfave), exclude=own_session(ctx))
    return True


@rpc(functions.messages.GetSavedGifs)
async def get_saved_gifs(ctx, req: functions.messages.GetSavedGifs):
    me = viewer(ctx)
    h, docs, _, _ = await library.user_list(me, "gifs")
    if hashing.unchanged(req.hash, h):
        return types.messages.SavedGifsNotModified()
    return stickers_tl.gifs_to_tl(h, docs)


@rpc(functions.messages.SaveGif)
async def save_gif(ctx, req: functions.messages.SaveGif):
    me = viewer(ctx)
    d = stickers_tl.doc_ref(req.id, GifIdInvalidError)
    await library.do_save(me, "gifs", d.id, d.access_hash, remove=bool(req.unsave), exclude=own_session(ctx))
    return True
