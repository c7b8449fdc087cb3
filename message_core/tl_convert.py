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
