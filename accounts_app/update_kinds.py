"""How accounts' own account-update kinds render (for push and getDifference)."""

from __future__ import annotations

from accounts_app import blocking, notify_settings, privacy, tl_convert, tl_convert_settings
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


@update_renderer(notify_settings.NOTIFY_SETTINGS_UPDATE)
async def render_notify_settings(event: UserUpdate, viewer_id: int) -> Rendered:
    p = event.payload
    peer_id = int(p["peer_id"])
    rendered = Rendered(updates=[tl_convert_settings.notify_settings_update_to_tl(p)])
    if p["scope"] == notify_settings.USER:
        rendered.user_ids = {peer_id}
    else:
        store = notify_settings.peer_store(p["scope"])
        if store is not None and peer_id:
            rendered.chats = await store.chats(viewer_id, [peer_id])
    return rendered


@update_renderer(blocking.PEER_BLOCKED_UPDATE)
async def render_peer_blocked(event: UserUpdate, viewer_id: int) -> Rendered:
    return Rendered(
        updates=[tl_convert_settings.peer_blocked_update_to_tl(event.payload)],
        user_ids={int(event.payload["user_id"])},
    )


@update_renderer(privacy.PRIVACY_UPDATE)
async def render_privacy(event: UserUpdate, viewer_id: int) -> Rendered:
    user_ids, _ = privacy.referenced_ids(event.payload.get("rules") or [])
    return Rendered(updates=[tl_convert_settings.privacy_update_to_tl(event.payload)], user_ids=set(user_ids))
