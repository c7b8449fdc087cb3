"""Plain results of the channel domain actions (no TL here; tl_convert renders them)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class ChannelEvent:
    """One durable pts event as the client sees it (new/edit/delete message)."""

    channel_id: int
    pts: int
    pts_count: int
    type: str  # new_message / edit_message / delete_messages / noop
    date: int
    message: dict | None = None  # the snapshot at event time
    message_ids: list[int] = field(default_factory=list)
    random_id: int | None = None  # for updateMessageID in the sender's response

    def to_payload(self) -> dict:
        return {
            "channel_id": self.channel_id,
            "pts": self.pts,
            "pts_count": self.pts_count,
            "type": self.type,
            "date": self.date,
            "message": self.message,
            "message_ids": self.message_ids,
        }

    @classmethod
    def from_payload(cls, p: dict) -> ChannelEvent:
        return cls(
            p["channel_id"],
            p["pts"],
            p["pts_count"],
            p["type"],
            p["date"],
            p.get("message"),
            p.get("message_ids") or [],
        )


@dataclass(slots=True)
class ChannelChange:
    """What a create / invite / join / leave / send did: the channel after it, the pts
    events it wrote (in pts order) and the users the response must carry."""

    channel: dict
    events: list[ChannelEvent] = field(default_factory=list)
    user_ids: set[int] = field(default_factory=set)
    missing_user_ids: list[int] = field(default_factory=list)
    duplicate: bool = False  # random_id retry: events hold the original snapshot
    member: dict | None = None  # the actor's member row, when the action loaded it


@dataclass(slots=True)
class History:
    channel: dict
    member: dict | None
    messages: list[dict]
    count: int
    user_ids: set[int]
    channel_ids: set[int]
    unread_mentions: set[int] = field(default_factory=set)  # the viewer's, among messages
    inexact: bool = True  # count is an estimate (a search's total is exact when known)


@dataclass(slots=True)
class Difference:
    """updates.getChannelDifference: kind is empty / difference / too_long."""

    kind: str
    channel: dict
    member: dict | None
    pts: int
    final: bool = True
    timeout: int = 30
    new_messages: list[dict] = field(default_factory=list)
    other_events: list[ChannelEvent] = field(default_factory=list)
    messages: list[dict] = field(default_factory=list)  # too_long: the latest page
    dialog: dict | None = None  # too_long
    user_ids: set[int] = field(default_factory=set)
    channel_ids: set[int] = field(default_factory=set)
    unread_mentions: set[int] = field(default_factory=set)  # the viewer's, among messages


@dataclass(slots=True)
class DialogEntry:
    channel: dict
    member: dict
    dialog: dict
    top_message: dict | None
    unread_count: int
    unread_mentions: int = 0
    top_date: int = 0  # the order key's date (the visible top's, else join/creation)


@dataclass(slots=True)
class Dialogs:
    entries: list[DialogEntry]
    count: int
    complete: bool
    user_ids: set[int]
    channel_ids: set[int]
