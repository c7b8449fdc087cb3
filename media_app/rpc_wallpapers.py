"""account.*WallPaper* and messages.setChatWallPaper (media_app.wallpapers)."""

from __future__ import annotations

from accounts_app import full_user
from accounts_app.access import check_input_peer_user
from edge_app.push import push_to_users, renderer
from edge_app.registry import rpc
from message_core.context import own_session, users_for, viewer
from tl import functions, types
from tl.errors import PeerIdInvalidError, WallpaperInvalidError

from . import tl_convert, wallpapers

PEER_WALLPAPER = "media.peer_wallpaper"


def _ref(w):
    ref = tl_convert.wallpaper_ref(w)
    if ref is None:
        raise WallpaperInvalidError()
    return ref


async def _call(coro):
    try:
        return await coro
    except wallpapers.WallPaperInvalid:
        raise WallpaperInvalidError() from None


@rpc(functions.account.UploadWallPaper)
async def upload_wallpaper(ctx, req: functions.account.UploadWallPaper):
    me = viewer(ctx)
    shown = await wallpapers.do_upload_wallpaper(
        me, tl_convert.upload_ref(req.file), req.mime_type, tl_convert.wallpaper_settings_from_tl(req.settings),
        for_chat=bool(req.for_chat),
    )  # fmt: skip
    return tl_convert.wallpaper_to_tl(shown)


@rpc(functions.account.GetWallPapers)
async def get_wallpapers(ctx, req: functions.account.GetWallPapers):
    return tl_convert.wallpapers_to_tl(await wallpapers.saved_wallpapers(viewer(ctx)), req.hash)


@rpc(functions.account.GetWallPaper)
async def get_wallpaper(ctx, req: functions.account.GetWallPaper):
    me = viewer(ctx)
    if isinstance(req.wallpaper, types.InputWallPaperNoFile):
        return tl_convert.no_file_wallpaper_to_tl(req.wallpaper.id, {})
    return tl_convert.wallpaper_to_tl(await _call(wallpapers.get_wallpaper(me, _ref(req.wallpaper))))


@rpc(functions.account.GetMultiWallPapers)
async def get_multi_wallpapers(ctx, req: functions.account.GetMultiWallPapers):
    me = viewer(ctx)
    refs = [_ref(w) for w in req.wallpapers[: wallpapers.SAVED_MAX + 1]]
    return [tl_convert.wallpaper_to_tl(s) for s in await _call(wallpapers.get_wallpapers(me, refs))]


@rpc(functions.account.SaveWallPaper)
async def save_wallpaper(ctx, req: functions.account.SaveWallPaper):
    if isinstance(req.wallpaper, types.InputWallPaperNoFile):
        return True  # a plain colour background: the client keeps it
    settings = tl_convert.wallpaper_settings_from_tl(req.settings)
    await _call(
        wallpapers.do_save_wallpaper(viewer(ctx), _ref(req.wallpaper), settings, unsave=bool(req.unsave))
    )
    return True


@rpc(functions.account.InstallWallPaper)
async def install_wallpaper(ctx, req: functions.account.InstallWallPaper):
    if isinstance(req.wallpaper, types.InputWallPaperNoFile):
        return True
    settings = tl_convert.wallpaper_settings_from_tl(req.settings)
    await _call(
        wallpapers.do_save_wallpaper(viewer(ctx), _ref(req.wallpaper), settings, unsave=False, install=True)
    )
    return True


@rpc(functions.account.ResetWallPapers)
async def reset_wallpapers(ctx, req):
    await wallpapers.do_reset_wallpapers(viewer(ctx))
    return True


@rpc(functions.messages.SetChatWallPaper)
async def set_chat_wallpaper(ctx, req: functions.messages.SetChatWallPaper):
    """A private chat's background (channels' need boosts, which do not exist here)."""
    me = viewer(ctx)
    try:
        peer_id = check_input_peer_user(me, req.peer)
    except PeerIdInvalidError:
        raise
    ref = None
    if req.wallpaper is not None:
        ref = _ref(req.wallpaper)
    elif req.id:
        raise WallpaperInvalidError()  # re-using a chat's service message: none exist here
    shown = await _call(
        wallpapers.do_set_chat_wallpaper(
            me, peer_id, ref, tl_convert.wallpaper_settings_from_tl(req.settings), for_both=bool(req.for_both),
            revert=bool(req.revert),
        )
    )  # fmt: skip
    if req.for_both and peer_id != me:
        await push_to_users([peer_id], PEER_WALLPAPER, {"peer_id": me})
    await push_to_users([me], PEER_WALLPAPER, {"peer_id": peer_id}, exclude=own_session(ctx))
    users = await users_for(me, [peer_id])
    return tl_convert.peer_wallpaper_update_to_tl(peer_id, shown, shown is not None, users)


@renderer(PEER_WALLPAPER)
async def _render_peer_wallpaper(payload: dict, viewer_id: int):
    from edge_app.orm_threads import in_thread

    peer_id = int(payload["peer_id"])
    found = await in_thread(wallpapers.chat_wallpaper)(viewer_id, peer_id)
    users = await users_for(viewer_id, [peer_id])
    shown, overridden = found if found else (None, False)
    return tl_convert.peer_wallpaper_update_to_tl(peer_id, shown, overridden, users)


@full_user.register_wallpaper_renderer
def _user_full_wallpaper(viewer_id: int, user_id: int):
    found = wallpapers.chat_wallpaper(viewer_id, user_id)
    if found is None:
        return None
    shown, overridden = found
    return tl_convert.wallpaper_to_tl(shown), overridden
