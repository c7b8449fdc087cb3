"""A supergroup or channel as the Bot API names it. Its own module: the update queue,
the message shapes and the forward origins all show chats, and the queue imports the
shapes."""

from __future__ import annotations


def group_chat(channel) -> dict:
    """A supergroup or channel as the Bot API names it: id -100<channel id>."""
    d = {
        "id": -(10**12) - channel.id,
        "type": "supergroup" if channel.megagroup else "channel",
        "title": channel.title,
    }
    if channel.username:
        d["username"] = channel.username
    return d
