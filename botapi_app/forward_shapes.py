"""A forwarded message's ``forward_origin`` (MessageOriginUser / HiddenUser / Channel /
Chat) from its stored forward header. Called from ``shapes.message`` in ORM threads."""

from __future__ import annotations

from accounts_app.models import User

from .chat_shape import group_chat


def forward_origin(fwd: dict, users: dict[int, User], user_shape) -> dict | None:
    """``user_shape``: shapes.user, handed in (shapes imports this module)."""
    date = int(fwd.get("date") or 0)
    channel_id = int(fwd.get("from_channel_id") or 0)
    if channel_id:
        from channels_app.models import Channel

        channel = Channel.objects.filter(id=channel_id).first()
        if channel is None:
            return None
        chat = group_chat(channel)
        if chat["type"] == "channel":
            d = {
                "type": "channel",
                "date": date,
                "chat": chat,
                "message_id": int(fwd.get("channel_post") or 0),
            }
            if fwd.get("post_author"):
                d["author_signature"] = fwd["post_author"]
            return d
        return {"type": "chat", "date": date, "sender_chat": chat}
    user_id = int(fwd.get("from_user_id") or 0)
    if user_id:
        sender = users.get(user_id) or User.objects.filter(id=user_id).first()
        if sender is not None:
            return {"type": "user", "date": date, "sender_user": user_shape(sender)}
    if fwd.get("from_name"):
        return {"type": "hidden_user", "date": date, "sender_user_name": fwd["from_name"]}
    return None
