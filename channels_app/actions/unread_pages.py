"""The page window of the owner's unread mentions and unread reactions
(messages.getUnreadMentions / getUnreadReactions): the same seek rules for both.

Ids are sought below ``offset_id`` newest first; a negative ``add_offset`` reads
upwards from ``offset_id`` and flips; ``add_offset`` is bounded (no SQL OFFSET beyond
ADD_OFFSET_MAX) and ``limit`` capped at HISTORY_LIMIT."""

from __future__ import annotations

from dataclasses import dataclass, field

from message_core import limits

from ..errors import LimitInvalidError


@dataclass(slots=True)
class UnreadWindow:
    column: str
    where: list[str]
    params: dict = field(default_factory=dict)
    order: str = "DESC"
    take: int = 0  # rows to fetch
    skip: int = 0
    limit: int = 0

    def sql(self) -> str:
        """The WHERE conditions (joined by AND) and the ORDER / LIMIT tail."""
        return f"{' AND '.join(self.where)} ORDER BY {self.column} {self.order} LIMIT %(n)s"

    def bind(self) -> dict:
        return {**self.params, "n": self.take}

    def cut(self, ids: list[int]) -> list[int]:
        """The page, newest first, from the fetched ids."""
        ids = sorted(ids, reverse=True) if self.order == "ASC" else ids[self.skip :]
        return ids[: self.limit]


def unread_window(
    column: str, where: list[str], params: dict, *, offset_id: int, add_offset: int, limit: int,
    max_id: int, min_id: int,
) -> UnreadWindow:  # fmt: skip
    if limit < 0 or not -limits.ADD_OFFSET_MAX <= add_offset <= limits.ADD_OFFSET_MAX:
        raise LimitInvalidError()
    limit = min(limit or limits.HISTORY_LIMIT, limits.HISTORY_LIMIT)
    w = UnreadWindow(column, list(where), dict(params))
    if add_offset < 0:
        # Newer than offset_id (the page straddles it): read upwards, then flip.
        w.where.append(f"{column} >= %(o)s")
        w.params["o"] = offset_id
        w.order, w.take, w.limit = "ASC", -add_offset, min(limit, -add_offset)
    else:
        w.order, w.take, w.skip, w.limit = "DESC", add_offset + limit, add_offset, limit
        if offset_id:
            w.where.append(f"{column} < %(o)s")
            w.params["o"] = offset_id
    if max_id:
        w.where.append(f"{column} < %(max)s")
        w.params["max"] = max_id
    if min_id:
        w.where.append(f"{column} > %(min)s")
        w.params["min"] = min_id
    return w
