"""Channel state that lives in the owner's account update log (accounts_app.updates):
read inbox marks, local history clears, dialog pins / unread marks / folders, and the
computed updateChannelTooLong nudge of updates.getDifference. State across both chat
kinds (the pinned order, drafts) is messages_app.update_kinds'."""

from __future__ import annotations

from datetime import datetime

from tl import types

from . import tl_convert

READ_INBOX = "channels.read_inbox"
AVAILABLE_MESSAGES = "channels.available_messages"
DIALOG_PINNED = "channels.dialog_pinned"
UNREAD_MARK = "channels.unread_mark"
FOLDER = "channels.folder"


def _dialog_peer(channel_id: int):
    return types.DialogPeer(peer=types.PeerChannel(channel_id=channel_id))


async def _render(event, viewer_id: int):
    from accounts_app.updates import Rendered

    from .chat_context import chats_for

    p = event.payload
    cid = int(p.get("channel_id", 0))
    carries = False
    if event.type == READ_INBOX:
        ups = [
            tl_convert.read_inbox_to_tl(
                cid, p["max_id"], p["still_unread_count"], p["pts"], p.get("folder_id", 0)
            )
        ]
    elif event.type == AVAILABLE_MESSAGES:
        ups = [tl_convert.available_messages_to_tl(cid, p["available_min_id"])]
    elif event.type == DIALOG_PINNED:
        ups = [
            types.UpdateDialogPinned(
                pinned=p["pinned"], folder_id=p.get("folder_id") or None, peer=_dialog_peer(cid)
            )
        ]
    elif event.type == UNREAD_MARK:
        ups = [types.UpdateDialogUnreadMark(unread=p["unread"], peer=_dialog_peer(cid))]
    elif event.type == FOLDER:
        ups = [
            types.UpdateFolderPeers(
                folder_peers=[
                    types.FolderPeer(peer=types.PeerChannel(channel_id=cid), folder_id=p["folder_id"])
                ],
                pts=event.pts,
                pts_count=event.pts_count,
            )
        ]
        carries = True
    else:
        return None
    return Rendered(updates=ups, chats=await chats_for(viewer_id, [cid]), carries_pts=carries)


async def too_long_nudges(user_id: int, since: datetime):
    """updateChannelTooLong for each of the user's channels with news since ``since``:
    computed, takes no account pts; the client follows with getChannelDifference."""
    from accounts_app.updates import Rendered

    from .chat_context import chats_for

    news = await channels_with_events_since(user_id, int(since.timestamp()))
    if not news:
        return None
    return Rendered(
        updates=[tl_convert.too_long_update_to_tl(cid, pts) for cid, pts in news],
        chats=await chats_for(user_id, [cid for cid, _ in news]),
    )


NUDGES_MAX = 100

# The newest pts event of each active joined channel (one backward step on the
# (channel_id, pts) primary key per channel, pruned at run time; any event type counts:
# new, edit, delete, pin, service, noop). Bounded by CHANNELS_PER_USER_MAX and NUDGES_MAX.
# Dates are whole seconds: an event in the very second of the client's state may have
# come after it, so that second counts (a needless nudge costs the client one empty
# getChannelDifference; a missing one loses the channel's news until its next event).
_NEWS = """
SELECT i.channel_id, c.pts FROM user_channel_member_index i
JOIN channels c ON c.id = i.channel_id AND NOT c.deleted
CROSS JOIN LATERAL (SELECT e.date FROM channel_update_events e WHERE e.channel_id = i.channel_id
  ORDER BY e.pts DESC LIMIT 1) e
WHERE i.user_id = %s AND i.status = 'active' AND e.date >= %s
ORDER BY e.date DESC, i.channel_id DESC LIMIT %s
"""


async def channels_with_events_since(user_id: int, since_date: int) -> list[tuple[int, int]]:
    """(channel_id, pts) of the user's active channels with channel_update_events in or
    after the second ``since_date`` (design: Viewer State point 4), newest first, at most
    NUDGES_MAX."""
    from message_core import db

    rows = await db.fetchall(_NEWS, (user_id, since_date, NUDGES_MAX))
    return [(r["channel_id"], r["pts"]) for r in rows]


def install() -> None:
    from accounts_app import updates

    for kind in (READ_INBOX, AVAILABLE_MESSAGES, DIALOG_PINNED, UNREAD_MARK, FOLDER):
        updates.register_update_renderer(kind, _render)
    updates.register_difference_contributor(too_long_nudges)


async def append(user_id: int, kind: str, payload: dict, exclude=None) -> int | None:
    """Log one of these events for the owner's other devices (no-op without the user row,
    e.g. in channel unit tests that use bare user ids)."""
    from accounts_app.updates import do_append_user_update

    try:
        return await do_append_user_update(user_id, kind, payload, exclude=exclude)
    except LookupError:
        return None
