"""Privacy settings (account.getPrivacy / setPrivacy) and the checks that enforce them.

Rules are a list of dicts in the order the client sent them, matched first to last;
the first rule that matches the viewer decides, and no match means "not allowed"
(Telegram's semantics). Rule types: ``allow_all``, ``allow_contacts``,
``allow_users`` / ``disallow_users`` (``ids``), ``allow_chats`` / ``disallow_chats``
(``ids``: members of those chats), ``disallow_contacts``, ``disallow_all``, and the
ones this server has nobody for (``allow_close_friends``, ``allow_premium``,
``allow_bots``, ``disallow_bots``), kept so clients read back what they set.

"Contacts" are the people the owner added to their contact list. Membership of
chats comes from the chat kinds through :func:`register_chat_membership`.

Enforced here: last-seen (:func:`hidden_statuses`), the phone number
(:func:`visible_phones`), chat invites (:func:`check_can_invite`, called by the chat
kinds) and forwards (:func:`forward_hides_sender`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from django.db import transaction

from accounts_app.models import Contact, PrivacySetting, User
from accounts_app.render_changes import user_render_changed
from accounts_app.updates import UserUpdate, append_user_update

STATUS = "status_timestamp"
CHAT_INVITE = "chat_invite"
PHONE_CALL = "phone_call"
PHONE_P2P = "phone_p2p"
FORWARDS = "forwards"
PROFILE_PHOTO = "profile_photo"
PHONE_NUMBER = "phone_number"
ADDED_BY_PHONE = "added_by_phone"
VOICE_MESSAGES = "voice_messages"
ABOUT = "about"
BIRTHDAY = "birthday"
STAR_GIFTS_AUTO_SAVE = "star_gifts_auto_save"
NO_PAID_MESSAGES = "no_paid_messages"
SAVED_MUSIC = "saved_music"
KEYS = (
    STATUS, CHAT_INVITE, PHONE_CALL, PHONE_P2P, FORWARDS, PROFILE_PHOTO, PHONE_NUMBER,
    ADDED_BY_PHONE, VOICE_MESSAGES, ABOUT, BIRTHDAY, STAR_GIFTS_AUTO_SAVE, NO_PAID_MESSAGES, SAVED_MUSIC,
)  # fmt: skip

RULE_TYPES = (
    "allow_all", "allow_contacts", "allow_users", "allow_chats", "allow_close_friends", "allow_premium",
    "allow_bots", "disallow_all", "disallow_contacts", "disallow_users", "disallow_chats", "disallow_bots",
)  # fmt: skip
_LISTS = ("allow_users", "disallow_users", "allow_chats", "disallow_chats")
RULES_MAX = 32
IDS_MAX = 1000  # users or chats in one rule

ALLOW_ALL = [{"t": "allow_all"}]
# Telegram's defaults: the phone number is for contacts, everything else for everyone.
# Telegram shows phone numbers and birthdays to contacts by default.
DEFAULTS = {PHONE_NUMBER: [{"t": "allow_contacts"}], BIRTHDAY: [{"t": "allow_contacts"}]}

PRIVACY_UPDATE = "account.privacy"  # payload: key, rules

ChatMembership = Callable[[int, list[int]], bool]  # (user_id, chat ids) -> member of any
_chat_membership: list[ChatMembership] = []


ChatsRenderer = Callable[[int, list[int]], Awaitable[list]]  # (viewer, chat ids) -> TL chats
_chats_renderers: list[ChatsRenderer] = []


def register_chats_renderer(fn: ChatsRenderer) -> ChatsRenderer:
    """An answer naming chats in allow/disallow rules carries them; the chat kinds
    render their own."""
    if fn not in _chats_renderers:
        _chats_renderers.append(fn)
    return fn


async def chats_to_tl(viewer_id: int, chat_ids: list[int]) -> list:
    out: list = []
    for fn in _chats_renderers:
        out += await fn(viewer_id, chat_ids)
    return out


def register_chat_membership(fn: ChatMembership) -> ChatMembership:
    if fn not in _chat_membership:
        _chat_membership.append(fn)
    return fn


def _member_of_any(user_id: int, chat_ids: list[int]) -> bool:
    return bool(chat_ids) and any(fn(user_id, chat_ids) for fn in _chat_membership)


def default_rules(key: str) -> list[dict]:
    return [dict(r) for r in DEFAULTS.get(key, ALLOW_ALL)]


def clean_rules(rules: list[dict]) -> list[dict]:
    out = []
    for rule in rules[:RULES_MAX]:
        kind = rule.get("t")
        if kind not in RULE_TYPES:
            continue
        clean = {"t": kind}
        if kind in _LISTS:
            clean["ids"] = list(dict.fromkeys(int(i) for i in rule.get("ids", [])))[:IDS_MAX]
        out.append(clean)
    return out


def allows(rules: list[dict], viewer_id: int, *, is_contact: bool) -> bool:
    """First matching rule decides; none matching: not allowed."""
    for rule in rules:
        kind = rule["t"]
        if kind == "allow_all":
            return True
        if kind == "disallow_all":
            return False
        if kind == "allow_contacts" and is_contact:
            return True
        if kind == "disallow_contacts" and is_contact:
            return False
        if kind == "allow_users" and viewer_id in rule["ids"]:
            return True
        if kind == "disallow_users" and viewer_id in rule["ids"]:
            return False
        if kind == "allow_chats" and _member_of_any(viewer_id, rule["ids"]):
            return True
        if kind == "disallow_chats" and _member_of_any(viewer_id, rule["ids"]):
            return False
    return False


# --- reading and writing -----------------------------------------------------------


def get_rules(user_id: int, key: str) -> list[dict]:
    rules = PrivacySetting.objects.filter(user_id=user_id, key=key).values_list("rules", flat=True).first()
    return default_rules(key) if rules is None else rules


def rules_of(owner_ids: list[int], keys: tuple[str, ...]) -> dict[tuple[int, str], list[dict]]:
    """``{(owner, key): rules}`` for every pair (defaults filled in), one query."""
    stored = {
        (uid, key): rules
        for uid, key, rules in PrivacySetting.objects.filter(user_id__in=owner_ids, key__in=keys).values_list(
            "user_id", "key", "rules"
        )
    }
    return {(uid, key): stored.get((uid, key)) or default_rules(key) for uid in owner_ids for key in keys}


def do_set_rules(user_id: int, key: str, rules: list[dict]) -> tuple[list[dict], UserUpdate]:
    """account.setPrivacy: store the rules (users that do not exist are dropped) and
    log updatePrivacy for the owner's other sessions."""
    rules = clean_rules(rules)
    user_ids = {i for r in rules if r["t"] in ("allow_users", "disallow_users") for i in r["ids"]}
    known = (
        set(User.objects.filter(id__in=list(user_ids)).values_list("id", flat=True)) if user_ids else set()
    )
    for rule in rules:
        if rule["t"] in ("allow_users", "disallow_users"):
            rule["ids"] = [i for i in rule["ids"] if i in known]
    with transaction.atomic():
        PrivacySetting.objects.update_or_create(user_id=user_id, key=key, defaults={"rules": rules})
        event = append_user_update(user_id, PRIVACY_UPDATE, {"key": key, "rules": rules})
    user_render_changed(user_id)
    return rules, event


def referenced_ids(rules: list[dict]) -> tuple[list[int], list[int]]:
    """(user ids, chat ids) the rules name (an answer carries them)."""
    users = [i for r in rules if r["t"] in ("allow_users", "disallow_users") for i in r["ids"]]
    chats = [i for r in rules if r["t"] in ("allow_chats", "disallow_chats") for i in r["ids"]]
    return list(dict.fromkeys(users)), list(dict.fromkeys(chats))


# --- enforcement -------------------------------------------------------------------


def _owners_with_contact(owner_ids: list[int], viewer_id: int) -> set[int]:
    return set(
        Contact.objects.filter(owner_id__in=owner_ids, user_id=viewer_id).values_list("owner_id", flat=True)
    )


def visibility(
    viewer_id: int, owner_ids: list[int], keys: tuple[str, ...], *, contact_of: set[int] | None = None
) -> dict[str, set[int]]:
    """``{key: owners whose rules let viewer_id see it}``; the viewer always sees itself.
    ``contact_of``: owners known to have the viewer as a contact (saves a query)."""
    others = [o for o in dict.fromkeys(owner_ids) if o != viewer_id]
    if contact_of is None:
        contact_of = _owners_with_contact(others, viewer_id) if others else set()
    rules = rules_of(others, keys) if others else {}
    out = {}
    for key in keys:
        seen = {viewer_id} if viewer_id in owner_ids else set()
        seen |= {o for o in others if allows(rules[(o, key)], viewer_id, is_contact=o in contact_of)}
        out[key] = seen
    return out


def check_can_invite(inviter_id: int, user_ids: list[int]) -> list[int]:
    """Chat kinds call this before adding ``user_ids`` to a chat: the users whose
    "chat invites" rules do not allow ``inviter_id`` (they answer USER_PRIVACY_RESTRICTED
    or list them as missing invitees)."""
    allowed = visibility(inviter_id, user_ids, (CHAT_INVITE,))[CHAT_INVITE]
    return [u for u in user_ids if u not in allowed and u != inviter_id]


def forward_hides_sender(sender_id: int, forwarder_id: int) -> bool:
    """A forward of ``sender_id``'s message by ``forwarder_id`` shows only the name
    when the sender's "forwards" rules do not allow the forwarder."""
    if sender_id == forwarder_id:
        return False
    return sender_id not in visibility(forwarder_id, [sender_id], (FORWARDS,))[FORWARDS]


def status_watchers(owner_id: int, watcher_ids: list[int]) -> list[int]:
    """The watchers allowed to see ``owner_id`` go on/offline (last-seen rules, blocks)."""
    from accounts_app.blocking import blocked_by

    if not watcher_ids:
        return []
    rules = get_rules(owner_id, STATUS)
    contacts = set(
        Contact.objects.filter(owner_id=owner_id, user_id__in=watcher_ids).values_list("user_id", flat=True)
    )
    blocked = blocked_by(owner_id, watcher_ids)
    return [w for w in watcher_ids if w not in blocked and allows(rules, w, is_contact=w in contacts)]


def hide_forward_senders(forwarder_id: int, items: list[dict]) -> None:
    """Forward sources call this with their items (``fwd_from`` headers): a header
    naming a user whose "forwards" rules do not allow ``forwarder_id`` keeps only the
    user's name (``from_name``), as on Telegram."""
    senders = list(
        {
            int(it["fwd_from"]["from_user_id"])
            for it in items
            if (it.get("fwd_from") or {}).get("from_user_id")
            and it["fwd_from"]["from_user_id"] != forwarder_id
        }
    )
    if not senders:
        return
    linked = visibility(forwarder_id, senders, (FORWARDS,))[FORWARDS]
    hidden = [s for s in senders if s not in linked]
    if not hidden:
        return
    names = {
        uid: f"{first} {last}".strip()
        for uid, first, last in User.objects.filter(id__in=hidden).values_list(
            "id", "first_name", "last_name"
        )
    }
    for it in items:
        header = it.get("fwd_from") or {}
        uid = header.get("from_user_id")
        if uid in names:
            it["fwd_from"] = {k: v for k, v in header.items() if k != "from_user_id"} | {
                "from_name": names[uid]
            }
