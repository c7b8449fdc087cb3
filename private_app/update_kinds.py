"""How private-message events of the account update log render, for push and for
updates.getDifference. A message is rendered as it is now (edited text, or nothing once
deleted: the later delete event, or its absence from history, tells the client)."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app.updates import Rendered, UserUpdate, update_renderer

from . import actions, tl_convert


async def _rendered(shown: list[dict], viewer_id: int, **kw) -> Rendered:
    from channels_app.access import chats_for

    users, chans = {viewer_id}, set()
    actions.message_refs(shown, users, chans)
    chats = await chats_for(viewer_id, sorted(chans)) if chans else []
    return Rendered(user_ids=users, chats=chats, **kw)


@update_renderer(actions.NEW_MESSAGE)
async def render_new_message(event: UserUpdate, viewer_id: int) -> Rendered | None:
    m = await sync_to_async(actions.load_box)(event.user_id, int(event.payload["box_id"]))
    if m is None:
        return None
    return await _rendered([m], viewer_id, messages=[tl_convert.message_to_tl(m)], carries_pts=True)


@update_renderer(actions.EDIT_MESSAGE)
async def render_edit_message(event: UserUpdate, viewer_id: int) -> Rendered | None:
    m = await sync_to_async(actions.load_box)(event.user_id, int(event.payload["box_id"]))
    if m is None:
        return None
    update = tl_convert.edit_message_update_to_tl(m, event.pts, event.pts_count)
    return await _rendered([m], viewer_id, updates=[update], carries_pts=True)


@update_renderer(actions.DELETE_MESSAGES)
async def render_delete_messages(event: UserUpdate, viewer_id: int) -> Rendered:
    update = tl_convert.delete_messages_update_to_tl(event.payload["ids"], event.pts, event.pts_count)
    return Rendered(updates=[update], carries_pts=True)


@update_renderer(actions.READ_INBOX)
async def render_read_inbox(event: UserUpdate, viewer_id: int) -> Rendered:
    p = event.payload
    update = tl_convert.read_inbox_update_to_tl(
        int(p["peer_id"]), int(p["max_id"]), int(p["still_unread_count"]), event.pts, event.pts_count
    )
    return Rendered(updates=[update], user_ids={int(p["peer_id"])}, carries_pts=True)


@update_renderer(actions.READ_OUTBOX)
async def render_read_outbox(event: UserUpdate, viewer_id: int) -> Rendered:
    p = event.payload
    update = tl_convert.read_outbox_update_to_tl(
        int(p["peer_id"]), int(p["max_id"]), event.pts, event.pts_count
    )
    return Rendered(updates=[update], user_ids={int(p["peer_id"])}, carries_pts=True)


@update_renderer(actions.UNREAD_MARK)
async def render_unread_mark(event: UserUpdate, viewer_id: int) -> Rendered:
    p = event.payload
    update = tl_convert.unread_mark_update_to_tl(int(p["peer_id"]), bool(p["unread"]))
    return Rendered(updates=[update], user_ids={int(p["peer_id"])})


@update_renderer(actions.FOLDER)
async def render_folder(event: UserUpdate, viewer_id: int) -> Rendered:
    p = event.payload
    update = tl_convert.folder_update_to_tl(
        int(p["peer_id"]), int(p["folder_id"]), event.pts, event.pts_count
    )
    return Rendered(updates=[update], user_ids={int(p["peer_id"])}, carries_pts=True)
