"""photos.*: profile photos are not stored yet, so every user has none."""

from __future__ import annotations

from accounts_app import tl_convert
from accounts_app.access import check_input_user
from accounts_app.rpc.context import viewer_id
from edge_app.registry import rpc
from tl import functions


@rpc(functions.photos.GetUserPhotos)
async def get_user_photos(ctx, req: functions.photos.GetUserPhotos):
    check_input_user(viewer_id(ctx), req.user_id)
    return tl_convert.user_photos_empty_to_tl()
