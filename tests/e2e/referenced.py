"""The rule "every user or chat an answer names is in its users / chats", checked on
what real clients receive.

``install(violations)`` wraps Telethon's request path and update intake and Kurigram's
``invoke`` / ``handle_updates``; every received object that carries ``users`` or
``chats`` is walked, and each id it names (a Peer, ``user_id``, ``inviter_id``,
``kicked_by``, ``promoted_by``, ``actor_id``, ...) that is missing is recorded as
``(object name, kind, id)``. The e2e conftest installs it for every test and fails the
test when anything was recorded.
"""

from __future__ import annotations

import functools

# Fields naming a user outside a Peer (ChannelParticipant*, admin-log events, invite
# importers and links, service actions, mention entities).
USER_FIELDS = frozenset(
    {"user_id", "inviter_id", "kicked_by", "promoted_by", "actor_id", "admin_id", "approved_by", "via_bot_id"}
)


def _name(obj) -> str:
    return getattr(obj, "QUALNAME", None) or type(obj).__name__


def _fields(obj):
    if hasattr(obj, "__slots__") and hasattr(obj, "QUALNAME"):  # Kurigram raw object
        return [(k, getattr(obj, k, None)) for k in obj.__slots__]
    return list(vars(obj).items())


def _is_tl(obj) -> bool:
    return hasattr(obj, "QUALNAME") or hasattr(obj, "CONSTRUCTOR_ID")


def refs_and_present(root):
    """(user refs, chat refs, users present, chats present) anywhere in ``root``."""
    ru, rc, pu, pc = {}, {}, set(), set()

    def walk(obj, where):
        if isinstance(obj, list | tuple):
            for x in obj:
                walk(x, where)
            return
        if not _is_tl(obj):
            return
        name = _name(obj).rsplit(".", 1)[-1]
        if name.startswith("Input"):
            return
        if name == "PeerUser":
            ru.setdefault(obj.user_id, where)
            return
        if name == "PeerChannel":
            rc.setdefault(obj.channel_id, where)
            return
        if name == "PeerChat":
            rc.setdefault(obj.chat_id, where)
            return
        for key, value in _fields(obj):
            if key == "users" and isinstance(value, list) and value and _is_tl(value[0]):
                pu.update(u.id for u in value)
            elif key == "chats" and isinstance(value, list) and value and _is_tl(value[0]):
                pc.update(c.id for c in value)
            elif key == "users" and name == "MessageActionChatAddUser":
                for u in value:
                    ru.setdefault(u, name)
            elif key in USER_FIELDS and isinstance(value, int) and value and not name.startswith("User"):
                ru.setdefault(value, f"{name}.{key}")
            elif key == "channel_id" and isinstance(value, int) and value:
                rc.setdefault(value, f"{name}.{key}")
            else:
                walk(value, name)

    walk(root, _name(root))
    return ru, rc, pu, pc


def missing(root) -> list[tuple[str, str, int]]:
    """What ``root`` names without carrying it; [] for objects without users/chats."""
    if not any(hasattr(root, k) for k in ("users", "chats")):
        return []
    ru, rc, pu, pc = refs_and_present(root)
    out = [(where, "user", uid) for uid, where in ru.items() if uid not in pu]
    out += [(where, "chat", cid) for cid, where in rc.items() if cid not in pc]
    return out


def install(violations: list):
    """Patch the client libraries (in this process); returns an undo function."""
    undo = []

    def check(obj, via: str):
        for where, kind, ident in missing(obj):
            violations.append((via, _name(obj), where, kind, ident))

    def patch(owner, attr, make):
        original = getattr(owner, attr)
        setattr(owner, attr, make(original))
        undo.append(lambda: setattr(owner, attr, original))

    try:
        from telethon._updates.messagebox import MessageBox
        from telethon.client.users import UserMethods

        def wrap_call(original):
            @functools.wraps(original)
            async def _call(self, sender, request, *args, **kwargs):
                result = await original(self, sender, request, *args, **kwargs)
                for r in result if isinstance(result, list) else [result]:
                    check(r, f"telethon {type(request).__name__}")
                return result

            return _call

        def wrap_process(original):
            @functools.wraps(original)
            def process_updates(self, updates, *args, **kwargs):
                check(updates, "telethon push")
                return original(self, updates, *args, **kwargs)

            return process_updates

        patch(UserMethods, "_call", wrap_call)
        patch(MessageBox, "process_updates", wrap_process)
    except ImportError:
        pass
    try:
        from pyrogram import Client

        def wrap_invoke(original):
            @functools.wraps(original)
            async def invoke(self, query, *args, **kwargs):
                result = await original(self, query, *args, **kwargs)
                check(result, f"kurigram {_name(query)}")
                return result

            return invoke

        def wrap_handle(original):
            @functools.wraps(original)
            async def handle_updates(self, updates):
                check(updates, "kurigram push")
                return await original(self, updates)

            return handle_updates

        patch(Client, "invoke", wrap_invoke)
        patch(Client, "handle_updates", wrap_handle)
    except ImportError:
        pass

    def restore():
        for fn in reversed(undo):
            fn()

    return restore
