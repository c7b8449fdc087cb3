"""Users as one viewer sees them: the flags a rendering of each user needs.

Every answer and push names its users as the viewer sees them: whether the viewer has
them as a contact and they have the viewer, what their privacy rules let the viewer see
(last-seen, phone) and whether they blocked the viewer. ``views_sync`` reads that with
the ORM, in a thread; ``read_views`` in one statement on an async connection, for the
event loop's hot paths (the per-viewer user cache of ``message_core.context``), where a
pool thread running ORM code would hold the interpreter lock against the loop: in a busy
megagroup that wait was about a tenth of the loop's time.

Rules naming chats (``allow_chats`` / ``disallow_chats``) need the chat kinds'
membership checks, which are synchronous: such users are read by ``views_sync`` in a
thread; nobody else is.
"""

from __future__ import annotations

from dataclasses import dataclass

from accounts_app import account_settings, blocking, privacy
from accounts_app.models import Contact, User
from edge_app.orm_threads import in_thread

VIEW_KEYS = (privacy.STATUS, privacy.PHONE_NUMBER)
_CHAT_RULES = frozenset({"allow_chats", "disallow_chats"})


@dataclass(frozen=True, slots=True)
class UserView:
    user: User
    contact: bool  # the viewer has this user in its contacts
    mutual: bool  # this user has the viewer in its contacts
    show_phone: bool
    show_status: bool
    blocked_viewer: bool  # this user blocked the viewer (hides their last-seen)
    # account.updateColor: {"color", "background_emoji_id"} of the name and the profile
    color: dict | None = None
    profile_color: dict | None = None


def views_sync(user_ids: list[int], viewer_id: int) -> list[UserView]:
    """The views of the known ``user_ids``, in their order (ORM; call from a thread)."""
    users = {u.id: u for u in User.objects.filter(id__in=user_ids)}
    mine = set(
        Contact.objects.filter(owner_id=viewer_id, user_id__in=user_ids).values_list("user_id", flat=True)
    )
    theirs = set(
        Contact.objects.filter(owner_id__in=user_ids, user_id=viewer_id).values_list("owner_id", flat=True)
    )
    seen = privacy.visibility(viewer_id, list(users), VIEW_KEYS, contact_of=theirs)
    blockers = blocking.blockers_among(viewer_id, [i for i in users if i != viewer_id])
    colors = account_settings.colors(list(users))
    return [
        UserView(
            users[i],
            contact=i in mine,
            mutual=i in theirs,
            show_phone=i in seen[privacy.PHONE_NUMBER],
            show_status=i in seen[privacy.STATUS],
            blocked_viewer=i in blockers,
            color=colors.get(i, (None, None))[0],
            profile_color=colors.get(i, (None, None))[1],
        )
        for i in user_ids
        if i in users
    ]


# Each flag is one probe of a unique key: (owner, user) of contacts and blocks, (user,
# key) of privacy settings.
_VIEWS = """
SELECT u.id, u.phone, u.first_name, u.last_name, u.username, u.lang_code,
       u.online_until, u.last_seen, u.deleted, u.photo, u.bot,
       EXISTS (SELECT 1 FROM contacts c WHERE c.owner_id = %(viewer)s AND c.user_id = u.id) AS contact,
       EXISTS (SELECT 1 FROM contacts c WHERE c.owner_id = u.id AND c.user_id = %(viewer)s) AS mutual,
       EXISTS (SELECT 1 FROM blocks b WHERE b.owner_id = u.id AND b.user_id = %(viewer)s) AS blocked_viewer,
       (SELECT p.rules FROM privacy_settings p
         WHERE p.user_id = u.id AND p.key = %(status_key)s) AS status_rules,
       (SELECT p.rules FROM privacy_settings p
         WHERE p.user_id = u.id AND p.key = %(phone_key)s) AS phone_rules,
       s.color, s.profile_color
  FROM users u LEFT JOIN account_settings s ON s.user_id = u.id
 WHERE u.id = ANY(%(ids)s)
"""
_USER_COLUMNS = (
    "id", "phone", "first_name", "last_name", "username", "lang_code", "online_until", "last_seen", "deleted",
    "photo", "bot",
)  # fmt: skip


def _names_chats(rules: list[dict]) -> bool:
    return any(r.get("t") in _CHAT_RULES for r in rules)


async def read_views(conn, user_ids: list[int], viewer_id: int) -> list[UserView]:
    """``views_sync`` in one statement on ``conn`` (a psycopg async connection with
    dict rows and JSON decoded); users whose rules name chats go through
    ``views_sync`` in a thread."""
    cur = await conn.execute(
        _VIEWS,
        {
            "viewer": viewer_id,
            "ids": user_ids,
            "status_key": privacy.STATUS,
            "phone_key": privacy.PHONE_NUMBER,
        },
    )
    views: dict[int, UserView] = {}
    by_chats: list[int] = []
    for row in await cur.fetchall():
        uid = row["id"]
        is_self = uid == viewer_id
        status_rules = row["status_rules"] or privacy.default_rules(privacy.STATUS)
        phone_rules = row["phone_rules"] or privacy.default_rules(privacy.PHONE_NUMBER)
        if not is_self and (_names_chats(status_rules) or _names_chats(phone_rules)):
            by_chats.append(uid)
            continue
        views[uid] = UserView(
            User(**{c: row[c] for c in _USER_COLUMNS}),
            contact=row["contact"],
            mutual=row["mutual"],
            show_phone=is_self or privacy.allows(phone_rules, viewer_id, is_contact=row["mutual"]),
            show_status=is_self or privacy.allows(status_rules, viewer_id, is_contact=row["mutual"]),
            blocked_viewer=row["blocked_viewer"] and not is_self,
            color=row["color"],
            profile_color=row["profile_color"],
        )
    if by_chats:
        for view in await in_thread(views_sync)(by_chats, viewer_id):
            views[view.user.id] = view
    return [views[i] for i in user_ids if i in views]
