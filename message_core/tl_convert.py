"""TL shapes both chat kinds render alike: entities, forward headers, drafts, the
affected-messages answers. Domain dicts in, TL objects out (and entities back)."""

from __future__ import annotations

from tl import types

_ENTITY_PREFIX = "MessageEntity"


def entities_from_tl(entities, resolve_user=None) -> list[dict]:
    """TL entities -> domain dicts. ``resolve_user(input_user) -> user_id`` for
    inputMessageEntityMentionName (raises the accounts error for a bad user)."""
    out = []
    for e in entities or ():
        name = type(e).__name__
        if name == "InputMessageEntityMentionName":
            user_id = resolve_user(e.user_id) if resolve_user else 0
            out.append({"type": "mentionName", "offset": e.offset, "length": e.length, "user_id": user_id})
            continue
        if not name.startswith(_ENTITY_PREFIX):
            continue
        kind = name[len(_ENTITY_PREFIX) :]
        d = {"type": kind[0].lower() + kind[1:]}
        for slot in type(e).__slots__:
            value = getattr(e, slot)
            if isinstance(value, bool | int | str) and value is not None:
                d[slot] = value
        out.append(d)
    return out


def entities_to_tl(entities) -> list:
    out = []
    for d in entities or ():
        kind = d.get("type", "")
        cls = getattr(types, _ENTITY_PREFIX + kind[:1].upper() + kind[1:], None)
        if cls is None:
            continue
        out.append(cls(**{k: v for k, v in d.items() if k != "type" and k in cls.__slots__}))
    return out


def fwd_header_to_tl(f: dict | None):
    if not f:
        return None
    if f.get("from_channel_id"):
        from_id = types.PeerChannel(channel_id=f["from_channel_id"])
    elif f.get("from_user_id"):
        from_id = types.PeerUser(user_id=f["from_user_id"])
    else:
        from_id = None
    return types.MessageFwdHeader(
        from_id=from_id,
        from_name=f.get("from_name") or None,
        date=f.get("date") or 0,
        channel_post=f.get("channel_post") or None,
        post_author=f.get("post_author") or None,
        # A discussion root: the post it copies, so clients link the thread to it. A
        # message forwarded to Saved Messages: the chat and message it was saved from.
        saved_from_peer=(
            types.PeerChannel(channel_id=f["saved_from_channel_id"])
            if f.get("saved_from_channel_id")
            else types.PeerUser(user_id=f["saved_from_user_id"])
            if f.get("saved_from_user_id")
            else None
        ),
        saved_from_msg_id=(
            f.get("saved_from_msg_id")
            if f.get("saved_from_channel_id") or f.get("saved_from_user_id")
            else None
        ),
    )


def affected_messages_to_tl(pts: int, pts_count: int):
    return types.messages.AffectedMessages(pts=pts, pts_count=pts_count)


def affected_history_to_tl(pts: int, pts_count: int, more: bool):
    return types.messages.AffectedHistory(pts=pts, pts_count=pts_count, offset=1 if more else 0)


def draft_to_tl(d: dict | None):
    """A dialog's cloud draft (channels_app.actions.drafts), or None for no draft."""
    if d is None:
        return None
    if d.get("empty"):
        return types.DraftMessageEmpty(date=d["date"])
    reply = d.get("reply_to_msg_id") or 0
    return types.DraftMessage(
        no_webpage=bool(d.get("no_webpage")),
        reply_to=types.InputReplyToMessage(reply_to_msg_id=reply) if reply else None,
        message=d["message"],
        entities=entities_to_tl(d.get("entities") or []) or None,
        date=d["date"],
    )


def draft_update_to_tl(d: dict):
    if d["kind"] == "c":
        peer = types.PeerChannel(channel_id=d["peer_id"])
    else:
        peer = types.PeerUser(user_id=d["peer_id"])
    return types.UpdateDraftMessage(peer=peer, draft=draft_to_tl(d))


# --- reactions ----------------------------------------------------------------------


def post_views(count: int | None) -> int:
    """A broadcast post's view counter as clients show it. As on Telegram, its author
    has seen it: a fresh post shows 1 and each subscriber who opens it raises it by one.
    The stored count holds the other viewers only (channel_message_viewers; the author's
    own views are never recorded), so the shown value is that plus the author's."""
    return (count or 0) + 1


def reaction_to_tl(emoticon: str):
    return types.ReactionEmoji(emoticon=emoticon)


def reactions_from_tl(reactions) -> list[str]:
    """Input reactions -> emoticons. reactionEmpty means none; custom emoji and paid
    reactions become "" (no such reaction exists here: the domain refuses it)."""
    out = []
    for r in reactions or ():
        if isinstance(r, types.ReactionEmpty):
            continue
        out.append(r.emoticon if isinstance(r, types.ReactionEmoji) else "")
    return out


def reaction_from_tl(reaction) -> str:
    found = reactions_from_tl([reaction])
    return found[0] if found else ""


def peer_reaction_to_tl(r: dict, viewer_id: int):
    """One recent reactor (``r`` from message_core.reactions.summary's recent list)."""
    return types.MessagePeerReaction(
        big=bool(r.get("big")),
        unread=bool(r.get("unread")),
        my=r["user_id"] == viewer_id,
        peer_id=types.PeerUser(user_id=r["user_id"]),
        date=r["date"],
        reaction=reaction_to_tl(r["reaction"]),
    )


def message_reactions_to_tl(summary: dict | None, viewer_id: int, *, can_see_list: bool, min_: bool = False):
    """A message's ``reactions`` as ``viewer_id`` sees them. ``min_``: the same object
    for every viewer (no chosen_order; clients keep their own choice)."""
    if not summary:
        return None
    mine = {r: i for i, r in enumerate(summary.get("mine") or ())}
    counts = sorted(summary["counts"].items(), key=lambda kv: (-kv[1], kv[0]))
    results = [
        types.ReactionCount(
            chosen_order=None if min_ or r not in mine else mine[r], reaction=reaction_to_tl(r), count=n
        )
        for r, n in counts
    ]
    recent = summary.get("recent") or []
    return types.MessageReactions(
        min=min_,
        can_see_list=can_see_list,
        results=results,
        recent_reactions=[peer_reaction_to_tl(r, viewer_id) for r in recent] if recent else None,
    )


def message_reactions_update_to_tl(peer, msg_id: int, reactions):
    return types.UpdateMessageReactions(
        peer=peer, msg_id=msg_id, reactions=reactions or types.MessageReactions(results=[])
    )


def search_results_to_tl(messages: list, chats: list, users: list, *, next_rate: int | None):
    """A searchGlobal / searchPosts page: a slice with the cursor's next rate while more
    may follow (the count is then a lower bound), else the final list."""
    if next_rate is not None:
        return types.messages.MessagesSlice(
            inexact=True, count=len(messages) + 1, next_rate=next_rate, messages=messages, topics=[],
            chats=chats, users=users,
        )  # fmt: skip
    return types.messages.Messages(messages=messages, topics=[], chats=chats, users=users)
