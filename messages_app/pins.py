"""Dialog pins across channel and private dialogs.

One pinned block per folder whatever the peers' kinds, as Telegram Desktop shows
private chats and groups side by side: at most PINNED_DIALOGS_MAX pins, one order
(``pinned_order``, higher on top, kept on ``channel_dialogs`` and ``private_dialogs``
rows alike), a new pin on top, and one reorderPinnedDialogs for both.

A peer is ``("c", channel_id)`` or ``("p", user_id)``. Channel and private rows are
written through different connections (the channel pool, the ORM), so the cap is
checked rather than locked: two devices pinning at the same instant may end one over.
"""

from __future__ import annotations

from message_core import db, limits
from private_app import dialogs as private_dialogs
from tl.errors import FolderIdInvalidError, PeerIdInvalidError, PinnedDialogsTooMuchError

Peer = tuple[str, int]


async def _channel_pins(user_id: int, folder_id: int) -> dict[int, int]:
    rows = await db.fetchall(
        "SELECT channel_id, pinned_order FROM channel_dialogs WHERE user_id = %s AND folder_id = %s AND pinned"
        " LIMIT %s",
        (user_id, folder_id, limits.PINNED_DIALOGS_MAX * 2),
    )
    return {r["channel_id"]: r["pinned_order"] for r in rows}


async def _channel_pin_state(user_id: int, channel_id: int) -> tuple[int, bool, int] | None:
    row = await db.fetchone(
        "SELECT folder_id, pinned, pinned_order FROM channel_dialogs WHERE user_id = %s AND channel_id = %s",
        (user_id, channel_id),
    )
    return (row["folder_id"], row["pinned"], row["pinned_order"]) if row else None


async def _set_channel_pins(
    user_id: int, folder_id: int, orders: dict[int, int], *, unpin_others: bool
) -> None:
    async with db.connection() as conn, conn.transaction():
        if orders:
            await conn.execute(
                "UPDATE channel_dialogs d SET pinned = o.ord > 0, pinned_order = GREATEST(o.ord, 0)"
                " FROM unnest(%s::bigint[], %s::int[]) AS o(channel_id, ord)"
                " WHERE d.user_id = %s AND d.channel_id = o.channel_id AND d.folder_id = %s",
                (list(orders), list(orders.values()), user_id, folder_id),
            )
        if unpin_others:
            await conn.execute(
                "UPDATE channel_dialogs SET pinned = false, pinned_order = 0 WHERE user_id = %s AND folder_id = %s"
                " AND pinned AND NOT channel_id = ANY(%s)",
                (user_id, folder_id, list(orders)),
            )


async def pinned_orders(user_id: int, folder_id: int) -> dict[Peer, int]:
    channels = await _channel_pins(user_id, folder_id)
    private = await private_dialogs.pinned_orders(user_id, folder_id)
    return {("c", c): o for c, o in channels.items()} | {("p", u): o for u, o in private.items()}


async def pin_state(user_id: int, peer: Peer) -> tuple[int, bool, int] | None:
    """(folder_id, pinned, pinned_order) of the user's dialog with ``peer``; None for a
    channel without one (a private dialog is made on demand: unpinned, main list)."""
    kind, peer_id = peer
    if kind == "c":
        return await _channel_pin_state(user_id, peer_id)
    return await private_dialogs.pin_state(user_id, peer_id)


async def _set(user_id: int, folder_id: int, orders: dict[Peer, int], *, unpin_others: bool = False) -> None:
    by_kind = {"c": {}, "p": {}}
    for (kind, peer_id), order in orders.items():
        by_kind[kind][peer_id] = order
    await _set_channel_pins(user_id, folder_id, by_kind["c"], unpin_others=unpin_others)
    await private_dialogs.set_pins(user_id, folder_id, by_kind["p"], unpin_others=unpin_others)


async def do_toggle_dialog_pin(user_id: int, peer: Peer, pinned: bool) -> int | None:
    """messages.toggleDialogPin: the folder whose pins changed, None if nothing did."""
    state = await pin_state(user_id, peer)
    if state is None:
        raise PeerIdInvalidError()
    folder_id, is_pinned, _ = state
    if is_pinned == pinned:
        return None
    order = 0
    if pinned:
        current = await pinned_orders(user_id, folder_id)
        if len(current) >= limits.PINNED_DIALOGS_MAX:
            raise PinnedDialogsTooMuchError()
        order = max(current.values(), default=0) + 1
    await _set(user_id, folder_id, {peer: order})
    return folder_id


async def do_reorder_pinned_dialogs(
    user_id: int, folder_id: int, order: list[Peer], *, force: bool = False
) -> list[Peer]:
    """messages.reorderPinnedDialogs: this order (first on top) for the folder's pins;
    with ``force`` the pins not listed are dropped. Returns the order applied."""
    if folder_id not in (0, 1):
        raise FolderIdInvalidError()
    order = list(dict.fromkeys(order))[: limits.PINNED_DIALOGS_MAX]
    n = len(order)
    await _set(user_id, folder_id, {p: n - i for i, p in enumerate(order)}, unpin_others=force)
    return order
