"""Dialog state across both chat kinds in the owner's account update log: the pinned
order over channels and private chats, the cloud draft of a dialog of either kind, and
chat folders.
Each is logged for the owner's other devices and replayed by updates.getDifference."""

from __future__ import annotations

from accounts_app import updates
from message_core import tl_convert as core_tl
from message_core.context import chats_for
from tl import types

from . import dialog_filters
from . import tl_convert as messages_tl

# The stored names stay what they were first logged as.
PINNED_ORDER = "channels.pinned_order"
DRAFT = "dialogs.draft"


def _dialog_peer(kind: str, peer_id: int):
    peer = types.PeerChannel(channel_id=peer_id) if kind == "c" else types.PeerUser(user_id=peer_id)
    return types.DialogPeer(peer=peer)


async def _render(event, viewer_id: int):
    p = event.payload
    if event.type == PINNED_ORDER:
        # "peers": [kind, id] pairs; events logged before private chats had "order" (channel ids).
        peers = [(k, int(i)) for k, i in (p["peers"] if "peers" in p else [["c", c] for c in p["order"]])]
        ups = [
            types.UpdatePinnedDialogs(
                folder_id=p.get("folder_id") or None, order=[_dialog_peer(k, i) for k, i in peers]
            )
        ]
    elif event.type == DRAFT:
        peers = [(p["kind"], int(p["peer_id"]))]
        ups = [core_tl.draft_update_to_tl(p)]
    elif event.type == dialog_filters.FILTER:
        folder = p["filter"]
        peers = [
            (k, int(i)) for key in ("pinned", "include", "exclude") for k, i in (folder or {}).get(key, ())
        ]
        chats = await chats_for(viewer_id, [i for k, i in peers if k == "c"])
        return updates.Rendered(
            updates=[messages_tl.dialog_filter_update_to_tl(viewer_id, p["id"], folder, chats)],
            chats=chats,
            user_ids={i for k, i in peers if k == "p"},
        )
    elif event.type == dialog_filters.FILTER_ORDER:
        return updates.Rendered(updates=[messages_tl.dialog_filter_order_update_to_tl(p["order"])])
    else:
        return None
    return updates.Rendered(
        updates=ups,
        chats=await chats_for(viewer_id, [i for k, i in peers if k == "c"]),
        user_ids={i for k, i in peers if k == "p"},
    )


def install() -> None:
    for kind in (PINNED_ORDER, DRAFT, dialog_filters.FILTER, dialog_filters.FILTER_ORDER):
        updates.register_update_renderer(kind, _render)
