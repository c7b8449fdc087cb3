"""What a channel's console page shows below its fields: its newest messages, some of
its members, each with who they are, and a forum's topics, so a moderator sees the
channel at a glance without opening the lists (which stay the place for filters and
actions)."""

from __future__ import annotations

from django.urls import reverse

from channels_app.models import Channel, ChannelForumTopic

from . import people
from .media import media_html, media_mark
from .models import Member, Message
from .pagination import parse_id
from .service_text import action_user_ids, service_text

RECENT_MESSAGES = 20
MEMBERS_SHOWN = 50
TOPICS_SHOWN = 50


def inline_context(request, object_id: str) -> dict:
    try:
        channel_id = parse_id(str(object_id))
    except ValueError:
        return {}
    staff = request.user
    out: dict = {}
    if staff.has_perm("console_app.view_message"):
        rows = list(
            Message.objects.filter(channel_id=channel_id).order_by("-id")[:RECENT_MESSAGES]
        )  # one partition, newest first by its primary key
        people.annotate(rows, ("sender_user_id",), staff, lambda m: action_user_ids(m.action))
        broadcast = Channel.objects.filter(id=channel_id, broadcast=True).exists()
        out["recent_messages"] = [
            {
                "id": m.id,
                "url": reverse("admin:console_app_message_change", args=[f"{channel_id}.{m.id}"]),
                "sender": people.shown(m, "sender_user_id", zero="the channel / operator"),
                "date": m.date,
                "text": _text(m, broadcast),
                "service": bool(m.action),
                "media": media_mark(m.media),
                "media_html": media_html(m.media) if m.media and not m.deleted else "",
                "deleted": m.deleted,
            }
            for m in rows
        ]
        out["messages_url"] = reverse("admin:console_app_message_changelist") + f"?channel_id={channel_id}"
    if staff.has_perm("console_app.view_member"):
        rows = list(
            Member.objects.filter(channel_id=channel_id, status="active").order_by("user_id")[:MEMBERS_SHOWN]
        )
        people.annotate(rows, ("user_id",), staff)
        out["members"] = [
            {
                "who": people.shown(m, "user_id"),
                "role": m.role,
                "rank": m.rank,
                "restricted": bool(m.banned_rights),
            }
            for m in rows
        ]
        out["members_url"] = reverse("admin:console_app_member_changelist") + f"?channel_id={channel_id}"
        out["members_shown"] = MEMBERS_SHOWN
    if (
        staff.has_perm("console_app.view_message")
        and Channel.objects.filter(id=channel_id, forum=True).exists()
    ):
        out["topics"] = _topics(channel_id, staff)
    return out


def _topics(channel_id: int, staff) -> list[dict]:
    """The forum's topics as its members list them: pinned first, then latest activity
    (the General topic, id 1, is virtual and not stored)."""
    # Every pinned topic (at most a handful) sorts before the unpinned (pinned_order 0);
    # their own order, 1 first, is restored below, the activity order kept.
    rows = list(
        ChannelForumTopic.objects.filter(channel_id=channel_id, deleted=False).order_by(
            "-pinned_order", "-top_message_id"
        )[:TOPICS_SHOWN]
    )
    rows.sort(key=lambda t: (t.pinned_order == 0, t.pinned_order))
    people.annotate(rows, ("creator_user_id",), staff)
    return [
        {
            "id": t.id,
            "title": t.title,
            "creator": people.shown(t, "creator_user_id"),
            "date": t.date,
            "top_message_id": t.top_message_id,
            "state": ", ".join(
                w for w, on in (("pinned", t.pinned_order), ("closed", t.closed), ("hidden", t.hidden)) if on
            )
            or "open",
        }
        for t in rows
    ]


def _text(m: Message, broadcast: bool) -> str:
    if m.action:
        return service_text(m.action, m.sender_user_id, people.display_names(m), broadcast=broadcast)
    return m.message if len(m.message) <= 200 else m.message[:199] + "…"
