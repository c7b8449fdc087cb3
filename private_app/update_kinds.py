"""How private-message events of the account update log render, for push and for
updates.getDifference. A message is rendered as it is now (edited text, or nothing once
deleted: the later delete event, or its absence from history, tells the client)."""

from __future__ import annotations

from accounts_app.updates import Rendered, UserUpdate, register_update_renderer, update_renderer
from message_core.context import chats_for, users_for
from polls_app.actions import attach_results_async as attach_polls

from . import actions, dialogs, reactions, saved_dialogs, tl_convert
from .reaction_view import attach


async def _chats(viewer_id: int, shown: list[dict]) -> tuple[set[int], list]:
    users, chans = {viewer_id}, set()
    actions.message_refs(shown, users, chans)
    return users, await chats_for(viewer_id, sorted(chans)) if chans else []


async def _messages_of(events: list[UserUpdate]) -> list[dict | None]:
    """Each event's message as it is now. A live push carries the snapshot its commit
    wrote (``payload["message"]``, never stored); a difference loads them in one query."""
    missing = [e for e in events if "message" not in e.payload]
    loaded = {}
    if missing:
        owner = missing[0].user_id  # one owner's log
        loaded = await actions.in_thread(actions.load_boxes)(
            owner, [int(e.payload["box_id"]) for e in missing]
        )
    return [e.payload.get("message") or loaded.get(int(e.payload["box_id"])) for e in events]


def _new_part(m: dict, event: UserUpdate) -> Rendered:
    return Rendered(messages=[tl_convert.message_to_tl(m)], carries_pts=True)


def _edit_part(m: dict, event: UserUpdate) -> Rendered:
    update = tl_convert.edit_message_update_to_tl(m, event.pts, event.pts_count)
    return Rendered(updates=[update], carries_pts=True)


async def _render_many(
    events: list[UserUpdate], viewer_id: int, part, *, fresh: bool = False
) -> list[Rendered | None]:
    """``fresh``: new messages; a live push of one (it carries its message) has no
    reactions to show yet and names its users from the cache."""
    shown = await _messages_of(events)
    pushed = all("message" in e.payload for e in events)
    if not (fresh and pushed):
        await actions.in_thread(attach)(viewer_id, [m for m in shown if m is not None])
    await attach_polls(viewer_id, [m for m in shown if m is not None])
    parts = [part(m, e) if m is not None else None for m, e in zip(shown, events, strict=True)]
    live = [m for m in shown if m is not None]
    if live:
        users, chats = await _chats(viewer_id, live)
        first = next(p for p in parts if p is not None)
        first.user_ids, first.chats = users, chats  # a difference merges them all
        if pushed:
            first.users = await users_for(viewer_id, users)
    return parts


async def render_new_messages(events: list[UserUpdate], viewer_id: int) -> list[Rendered | None]:
    return await _render_many(events, viewer_id, _new_part, fresh=True)


async def render_edit_messages(events: list[UserUpdate], viewer_id: int) -> list[Rendered | None]:
    return await _render_many(events, viewer_id, _edit_part)


async def render_new_message(event: UserUpdate, viewer_id: int) -> Rendered | None:
    return (await render_new_messages([event], viewer_id))[0]


async def render_edit_message(event: UserUpdate, viewer_id: int) -> Rendered | None:
    return (await render_edit_messages([event], viewer_id))[0]


register_update_renderer(actions.NEW_MESSAGE, render_new_message, many=render_new_messages)
register_update_renderer(actions.EDIT_MESSAGE, render_edit_message, many=render_edit_messages)


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


@update_renderer(dialogs.UNREAD_MARK)
async def render_unread_mark(event: UserUpdate, viewer_id: int) -> Rendered:
    p = event.payload
    update = tl_convert.unread_mark_update_to_tl(int(p["peer_id"]), bool(p["unread"]))
    return Rendered(updates=[update], user_ids={int(p["peer_id"])})


@update_renderer(dialogs.FOLDER)
async def render_folder(event: UserUpdate, viewer_id: int) -> Rendered:
    p = event.payload
    update = tl_convert.folder_update_to_tl(
        int(p["peer_id"]), int(p["folder_id"]), event.pts, event.pts_count
    )
    return Rendered(updates=[update], user_ids={int(p["peer_id"])}, carries_pts=True)


@update_renderer(dialogs.DIALOG_PINNED)
async def render_dialog_pinned(event: UserUpdate, viewer_id: int) -> Rendered:
    p = event.payload
    update = tl_convert.dialog_pinned_update_to_tl(
        int(p["peer_id"]), bool(p["pinned"]), int(p.get("folder_id", 0))
    )
    return Rendered(updates=[update], user_ids={int(p["peer_id"])})


async def render_message_reactions(events: list[UserUpdate], viewer_id: int) -> list[Rendered | None]:
    """updateMessageReactions with each message's reactions as they are now (one
    query for a difference page); a deleted message renders nothing."""
    boxes = await actions.in_thread(reactions.load_for_render)(
        viewer_id, [int(e.payload["box_id"]) for e in events]
    )
    out: list[Rendered | None] = []
    for e in events:
        m = boxes.get(int(e.payload["box_id"]))
        if m is None:
            out.append(None)
            continue
        users = {m["peer_id"], *actions.reactor_ids([m])}
        out.append(Rendered(updates=[tl_convert.message_reactions_to_update(m)], user_ids=users))
    return out


async def render_message_reaction(event: UserUpdate, viewer_id: int) -> Rendered | None:
    return (await render_message_reactions([event], viewer_id))[0]


register_update_renderer(reactions.MESSAGE_REACTIONS, render_message_reaction, many=render_message_reactions)


@update_renderer(reactions.READ_CONTENTS)
async def render_read_contents(event: UserUpdate, viewer_id: int) -> Rendered:
    update = tl_convert.read_contents_update_to_tl(event.payload["ids"], event.pts, event.pts_count)
    return Rendered(updates=[update], carries_pts=True)


async def _saved_peers_rendered(viewer_id: int, keys: list[int], update) -> Rendered:
    chans = sorted(-k for k in keys if k < 0)
    chats = await chats_for(viewer_id, chans) if chans else []
    return Rendered(updates=[update], user_ids={k for k in keys if k > 0}, chats=chats)


@update_renderer(saved_dialogs.SAVED_DIALOG_PINNED)
async def render_saved_dialog_pinned(event: UserUpdate, viewer_id: int) -> Rendered:
    key = int(event.payload["saved_peer"])
    update = tl_convert.saved_dialog_pinned_update_to_tl(key, bool(event.payload["pinned"]))
    return await _saved_peers_rendered(viewer_id, [key], update)


@update_renderer(saved_dialogs.SAVED_PINNED_ORDER)
async def render_saved_pinned_order(event: UserUpdate, viewer_id: int) -> Rendered:
    keys = [int(k) for k in event.payload["order"]]
    return await _saved_peers_rendered(viewer_id, keys, tl_convert.pinned_saved_dialogs_update_to_tl(keys))
