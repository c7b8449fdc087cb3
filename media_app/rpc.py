"""upload.saveFilePart / upload.saveBigFilePart (parts of a file a later request names
by its id) and the photos.* profile photo methods."""

from __future__ import annotations

from accounts_app.access import check_input_user
from edge_app.registry import rpc
from message_core.context import users_for, viewer
from tl import functions, types
from tl.errors import BotInvalidError, LimitInvalidError, OffsetInvalidError, PhotoInvalidError

from . import actions, profile, tl_convert


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


# --- profile photos ---------------------------------------------------------------------------

USER_PHOTOS_LIMIT = 100


async def _photo_answer(me: int, photo: dict | None):
    from accounts_app.push import push_photo_to_watchers

    await push_photo_to_watchers(me)
    if photo is None:
        return tl_convert.photos_photo_to_tl(None, await users_for(me, [me]))
    return tl_convert.photos_photo_to_tl(photo, await users_for(me, [me]))


@rpc(functions.photos.UploadProfilePhoto)
async def upload_profile_photo(ctx, req: functions.photos.UploadProfilePhoto):
    me = viewer(ctx)
    if req.bot is not None:
        raise BotInvalidError()  # no bots here
    if req.file is None:
        raise PhotoInvalidError()  # video-only profile photos are not stored
    photo = await actions.do_upload_photo(me, tl_convert.upload_ref(req.file), chat_photo=True)
    await profile.do_set_profile_photo(me, photo["id"])
    return await _photo_answer(me, photo)


@rpc(functions.photos.UpdateProfilePhoto)
async def update_profile_photo(ctx, req: functions.photos.UpdateProfilePhoto):
    me = viewer(ctx)
    if req.bot is not None:
        raise BotInvalidError()
    if isinstance(req.id, types.InputPhoto):
        photo = await actions.get_photo(req.id.id, req.id.access_hash, req.id.file_reference)
        photo = await profile.do_set_profile_photo(me, photo["id"])
    else:
        photo = await profile.do_remove_current_photo(me)
    return await _photo_answer(me, photo)


@rpc(functions.photos.DeletePhotos)
async def delete_photos(ctx, req: functions.photos.DeletePhotos):
    me = viewer(ctx)
    if len(req.id) > USER_PHOTOS_LIMIT:
        raise LimitInvalidError()
    ids = [p.id for p in req.id if isinstance(p, types.InputPhoto)]
    deleted = await profile.do_delete_photos(me, ids)
    if deleted:
        from accounts_app.push import push_photo_to_watchers

        await push_photo_to_watchers(me)
    return deleted


@rpc(functions.photos.GetUserPhotos)
async def get_user_photos(ctx, req: functions.photos.GetUserPhotos):
    me = viewer(ctx)
    user_id = check_input_user(me, req.user_id)
    if req.limit < 0:
        raise LimitInvalidError()
    if req.offset < 0:
        raise OffsetInvalidError()
    limit = min(req.limit, USER_PHOTOS_LIMIT)
    count, photos = await profile.get_user_photos(user_id, req.offset, req.max_id, limit)
    users = await users_for(me, [user_id])
    return tl_convert.photos_to_tl(count, photos, users, sliced=count > req.offset + len(photos))
