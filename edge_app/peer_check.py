"""The rule "every update that leaves the server carries every user and chat it names",
checked in one place: the codec every pushed ``Updates`` and every answer of the listener
passes through on its way to the client (``CheckedCodec``).

Telegram Desktop treats a peer it was never given as "data not found": it drops the
update or refetches the whole state. An update that breaks the rule is still sent (what
it carries is right; a refetch recovers what is missing), but never silently: it is
counted in ``telesrv_updates_missing_peers`` by update and kind of peer, and logged with
the update's name and the id it lacks, so the renderer that forgot it can be found.

Checked: the objects that deliver updates (``updates``, ``updatesCombined``, the
differences). Answers of other methods are held to the same rule by the e2e tests'
client-side check (tests/e2e/referenced.py), which this one mirrors.
"""

from __future__ import annotations

import logging
from typing import Any

from edge_app import metrics
from mtproto.session.codec import TLCodec
from tl.runtime import TLObject

log = logging.getLogger("telesrv.edge.peer_check")

# Objects that deliver updates to a client, live or in a difference.
CHECKED = frozenset(
    {
        "updates",
        "updatesCombined",
        "updates.difference",
        "updates.differenceSlice",
        "updates.channelDifference",
        "updates.channelDifferenceTooLong",
    }
)

# Fields naming a user outside a Peer (participants, admin-log events, invites, service
# actions, messages sent via a bot).
USER_FIELDS = frozenset(
    {"user_id", "inviter_id", "kicked_by", "promoted_by", "actor_id", "admin_id", "approved_by", "via_bot_id"}
)


# class -> (fields that may hold TL objects, int fields naming a user, int fields naming
# a chat): read once from the generated constructor's annotations, so a walk touches
# only the fields that can name a peer (a message has some fifty, most of them scalars).
_plans: dict[type, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}


def _plan(cls: type) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    plan = _plans.get(cls)
    if plan is None:
        hints = getattr(cls.__init__, "__annotations__", {})
        name = cls.TL_NAME
        nested = tuple(f for f in cls.__slots__ if "TLObject" in str(hints.get(f, "TLObject")))
        user_ints = tuple(
            f
            for f in cls.__slots__
            if f in USER_FIELDS and "int" in str(hints.get(f, "")) and not name.startswith("user")
        )
        if name == "messageActionChatAddUser":
            user_ints += ("users",)
        chat_ints = tuple(f for f in cls.__slots__ if f == "channel_id" and "int" in str(hints.get(f, "")))
        plan = _plans[cls] = (nested, user_ints, chat_ints)
    return plan


def _references(root: TLObject) -> tuple[dict[int, str], dict[int, str], set[int], set[int]]:
    """(users named, chats named, users carried, chats carried): each named id with the
    name of the update that names it."""
    named_users: dict[int, str] = {}
    named_chats: dict[int, str] = {}
    users: set[int] = set()
    chats: set[int] = set()
    # (object, name of the update it is inside)
    stack: list[tuple[Any, str]] = [(root, root.TL_NAME)]
    while stack:
        obj, where = stack.pop()
        if type(obj) is list:
            stack.extend((x, where) for x in obj if isinstance(x, TLObject))
            continue
        name = obj.TL_NAME
        if name == "peerUser":
            named_users.setdefault(obj.user_id, where)
            continue
        if name == "peerChannel":
            named_chats.setdefault(obj.channel_id, where)
            continue
        if name == "peerChat":
            named_chats.setdefault(obj.chat_id, where)
            continue
        if name.startswith("input"):
            continue
        if name.startswith("update") and not name.startswith("updates"):
            where = name
        nested, user_ints, chat_ints = _plan(type(obj))
        for key in user_ints:
            value = getattr(obj, key, None)
            if type(value) is int:
                named_users.setdefault(value, where)
            elif type(value) is list:  # messageActionChatAddUser.users
                for u in value:
                    named_users.setdefault(u, where)
        for key in chat_ints:
            value = getattr(obj, key, None)
            if type(value) is int:
                named_chats.setdefault(value, where)
        for key in nested:
            value = getattr(obj, key, None)
            if value is None:
                continue
            if key == "users" and type(value) is list:
                users.update(u.id for u in value)
            elif key == "chats" and type(value) is list:
                chats.update(c.id for c in value)
            elif isinstance(value, TLObject) or (type(value) is list and value):
                stack.append((value, where))
    return named_users, named_chats, users, chats


# id(update) -> (update, its references). A push renders one update object per view
# and wraps it in an ``Updates`` per recipient (their own users and chats): the update
# is walked once, each recipient's envelope only compared. The entry holds the update
# itself, so its id is not reused while cached.
_update_refs: dict[int, tuple[TLObject, tuple[dict[int, str], dict[int, str], set[int], set[int]]]] = {}
UPDATE_REFS_MAX = 2048
# Envelopes whose only nested fields are their updates, users and chats.
ENVELOPES = frozenset({"updates", "updatesCombined"})


def _update_references(update: TLObject) -> tuple[dict[int, str], dict[int, str], set[int], set[int]]:
    hit = _update_refs.get(id(update))
    if hit is not None and hit[0] is update:
        return hit[1]
    refs = _references(update)
    if len(_update_refs) >= UPDATE_REFS_MAX:
        _update_refs.clear()
    _update_refs[id(update)] = (update, refs)
    return refs


def missing_peers(obj: Any) -> list[tuple[str, str, int]]:
    """(update name, "user" | "chat", id) for each peer an update-delivering object
    names without carrying it; [] for every other object."""
    if not isinstance(obj, TLObject) or obj.TL_NAME not in CHECKED:
        return []
    if obj.TL_NAME in ENVELOPES:
        return _missing_in_envelope(obj)
    named_users, named_chats, users, chats = _references(obj)
    out = [(where, "user", uid) for uid, where in named_users.items() if uid and uid not in users]
    out += [(where, "chat", cid) for cid, where in named_chats.items() if cid and cid not in chats]
    return out


def _missing_in_envelope(obj: Any) -> list[tuple[str, str, int]]:
    """``missing_peers`` of an ``updates``/``updatesCombined``, each update's own walk
    cached (the result is the same as walking the envelope whole)."""
    updates = obj.updates
    if len(updates) == 1 and isinstance(updates[0], TLObject):
        # The usual push: one update; its ids looked up in the envelope's short lists.
        named_users, named_chats, c_users, c_chats = _update_references(updates[0])
        out = []
        if named_users:
            carried = [u.id for u in obj.users]
            out += [
                (where, "user", uid)
                for uid, where in named_users.items()
                if uid and uid not in carried and uid not in c_users
            ]
        if named_chats:
            carried = [c.id for c in obj.chats]
            out += [
                (where, "chat", cid)
                for cid, where in named_chats.items()
                if cid and cid not in carried and cid not in c_chats
            ]
        return out
    refs = [_update_references(u) for u in updates if isinstance(u, TLObject)]
    users = {u.id for u in obj.users}
    chats = {c.id for c in obj.chats}
    named_users = {}
    named_chats = {}
    for n_users, n_chats, c_users, c_chats in refs:
        for uid, where in n_users.items():
            named_users.setdefault(uid, where)
        for cid, where in n_chats.items():
            named_chats.setdefault(cid, where)
        users |= c_users
        chats |= c_chats
    out = [(where, "user", uid) for uid, where in named_users.items() if uid and uid not in users]
    out += [(where, "chat", cid) for cid, where in named_chats.items() if cid and cid not in chats]
    return out


def check(obj: Any) -> list[tuple[str, str, int]]:
    """Count and log what ``obj`` names without carrying; returns it."""
    found = missing_peers(obj)
    for update, kind, ident in found:
        metrics.UPDATES_MISSING_PEERS.labels(update, kind).inc()
        log.warning("%s sent without the %s %d it names (in %s)", update, kind, ident, obj.TL_NAME)
    return found


class CheckedCodec(TLCodec):
    """The listener's codec: every object it encodes for a client is checked first."""

    def encode(self, obj: Any, layer: int) -> bytes:
        try:
            check(obj)
        except Exception:
            # A fault of the check must never cost the client its answer.
            log.exception("peer check of %s failed", getattr(obj, "TL_NAME", type(obj).__name__))
        return super().encode(obj, layer)
