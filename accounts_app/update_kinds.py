"""How accounts' own account-update kinds render (for push and getDifference)."""

from __future__ import annotations

from accounts_app import tl_convert
from accounts_app.actions import USER_NAME_UPDATE, USER_PROFILE_UPDATE
from accounts_app.updates import Rendered, UserUpdate, update_renderer


@update_renderer(USER_NAME_UPDATE)
async def render_user_name(event: UserUpdate, viewer_id: int) -> Rendered:
    return Rendered(
        updates=[tl_convert.user_name_update_to_tl(event.payload)],
        user_ids={int(event.payload["user_id"])},
    )


@update_renderer(USER_PROFILE_UPDATE)
async def render_user_profile(event: UserUpdate, viewer_id: int) -> Rendered:
    user_id = int(event.payload["user_id"])
    return Rendered(updates=[tl_convert.user_refresh_update_to_tl(user_id)], user_ids={user_id})
