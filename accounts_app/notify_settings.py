"""Notification settings (mute, previews, sounds) per owner: for one peer, and for the
three peer kinds (private chats, groups, channels) that a peer without its own falls
back to.

Settings are a plain dict of what the client set (``mute_until``, ``show_previews``,
``silent``, ``sound``, ``stories_muted``, ``stories_hide_sender``, ``stories_sound``);
``{}`` means "as the kind's default". A change replaces the whole dict (clients always
send the full settings) and is logged in the owner's account update log, so the
owner's other sessions get ``updateNotifySettings`` live or through getDifference.

User peers and the kinds are stored here. A chat kind that keeps per-dialog state
(channels keep it on their dialog row, as the design says) registers a
:class:`PeerStore`; accounts never imports it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.db import transaction

from accounts_app.models import NotifySetting, User
from accounts_app.updates import UserUpdate, append_user_update, append_user_updates
from tl.errors import PeerIdInvalidError

USER = "user"  # scope of a user peer's row
KINDS = ("users", "chats", "broadcasts")
NOTIFY_SETTINGS_UPDATE = "account.notify_settings"  # payload: scope, peer_id, settings

INT32_MAX = 2**31 - 1
EXCEPTIONS_CAP = 500  # peers listed by account.getNotifyExceptions
_BOOL_KEYS = ("show_previews", "silent", "stories_muted", "stories_hide_sender")
_SOUND_KEYS = ("sound", "stories_sound")
_SOUND_KINDS = ("default", "none", "local", "ringtone")


def clean_settings(raw: dict) -> dict:
    """Keep the known keys with sane values (``mute_until`` in int32, sounds well formed)."""
    out: dict = {}
    for key in _BOOL_KEYS:
        if raw.get(key) is not None:
            out[key] = bool(raw[key])
    if raw.get("mute_until") is not None:
        out["mute_until"] = max(0, min(int(raw["mute_until"]), INT32_MAX))
    for key in _SOUND_KEYS:
        sound = raw.get(key)
        if isinstance(sound, dict) and sound.get("t") in _SOUND_KINDS:
            clean = {"t": sound["t"]}
            if sound["t"] == "local":
                clean["title"] = str(sound.get("title", ""))[:128]
                clean["data"] = str(sound.get("data", ""))[:256]
            elif sound["t"] == "ringtone":
                clean["id"] = int(sound.get("id", 0))
            out[key] = clean
    return out


def is_muted(settings: dict, now: int) -> bool:
    return int(settings.get("mute_until") or 0) > now


# --- chat kinds that keep their own per-peer settings --------------------------------


@dataclass(frozen=True, slots=True)
class PeerStore:
    """Per-peer settings kept by a chat kind (``scope`` names it, e.g. "channel").

    ``resolve(viewer, input_peer)`` -> peer id, or None when the peer is not of this
    kind (raises the kind's error for a peer the viewer may not address);
    ``write(viewer, peer_id, settings)``; ``read(viewer, peer_ids)`` -> {id: settings};
    ``exceptions(viewer, limit)`` -> ``[(peer_id, kind, settings)]`` with kind one of
    :data:`KINDS`; ``reset(viewer)`` -> peer ids whose settings were cleared;
    ``chats(viewer, peer_ids)`` -> the TL chats an answer naming them must carry.
    """

    scope: str
    resolve: Callable[[int, object], Awaitable[int | None]]
    write: Callable[[int, int, dict], Awaitable[None]]
    read: Callable[[int, list[int]], Awaitable[dict[int, dict]]]
    exceptions: Callable[[int, int], Awaitable[list[tuple[int, str, dict]]]]
    reset: Callable[[int], Awaitable[list[int]]]
    chats: Callable[[int, list[int]], Awaitable[list]]


_stores: dict[str, PeerStore] = {}


def register_peer_store(store: PeerStore) -> PeerStore:
    _stores[store.scope] = store
    return store


def peer_stores() -> list[PeerStore]:
    return list(_stores.values())


def peer_store(scope: str) -> PeerStore | None:
    return _stores.get(scope)


# --- user peers and kinds (stored here) ----------------------------------------------


def _log(user_id: int, scope: str, peer_id: int, settings: dict) -> UserUpdate:
    return append_user_update(
        user_id, NOTIFY_SETTINGS_UPDATE, {"scope": scope, "peer_id": peer_id, "settings": settings}
    )


def set_settings(user_id: int, scope: str, peer_id: int, settings: dict) -> UserUpdate:
    """Store the settings of a user peer or a kind and log the change."""
    if scope != USER and scope not in KINDS:
        raise PeerIdInvalidError()
    if scope == USER and not User.objects.filter(id=peer_id).exists():
        raise PeerIdInvalidError()
    settings = clean_settings(settings)
    with transaction.atomic():
        if settings:
            NotifySetting.objects.update_or_create(
                user_id=user_id, scope=scope, peer_id=peer_id, defaults={"settings": settings}
            )
        else:
            NotifySetting.objects.filter(user_id=user_id, scope=scope, peer_id=peer_id).delete()
        return _log(user_id, scope, peer_id, settings)


def log_settings_change(user_id: int, scope: str, peer_id: int, settings: dict) -> UserUpdate:
    """Log a change a :class:`PeerStore` made (own transaction)."""
    with transaction.atomic():
        return _log(user_id, scope, peer_id, settings)


def get_settings(user_id: int, scope: str, peer_id: int = 0) -> dict:
    row = (
        NotifySetting.objects.filter(user_id=user_id, scope=scope, peer_id=peer_id)
        .values_list("settings", flat=True)
        .first()
    )
    return row or {}


def user_peer_settings(user_id: int, peer_ids: list[int]) -> dict[int, dict]:
    """``{peer_id: settings}`` of these user peers (absent: default)."""
    if not peer_ids:
        return {}
    return dict(
        NotifySetting.objects.filter(user_id=user_id, scope=USER, peer_id__in=peer_ids).values_list(
            "peer_id", "settings"
        )
    )


def user_peer_exceptions(user_id: int, limit: int) -> list[tuple[int, dict]]:
    return list(
        NotifySetting.objects.filter(user_id=user_id, scope=USER)
        .order_by("-updated")
        .values_list("peer_id", "settings")[:limit]
    )


def reset_stored(user_id: int) -> list[UserUpdate]:
    """account.resetNotifySettings' own part: every kind back to default, user peers
    cleared; one logged change per kind and per cleared peer."""
    with transaction.atomic():
        rows = list(
            NotifySetting.objects.filter(user_id=user_id, scope=USER).values_list("peer_id", flat=True)[
                :EXCEPTIONS_CAP
            ]
        )
        NotifySetting.objects.filter(user_id=user_id).delete()
        items = [(user_id, NOTIFY_SETTINGS_UPDATE, {"scope": k, "peer_id": 0, "settings": {}}) for k in KINDS]
        items += [
            (user_id, NOTIFY_SETTINGS_UPDATE, {"scope": USER, "peer_id": p, "settings": {}}) for p in rows
        ]
        return append_user_updates(items)


async def do_reset_all(user_id: int) -> list[UserUpdate]:
    events = await sync_to_async(reset_stored)(user_id)
    for store in peer_stores():
        for peer_id in await store.reset(user_id):
            events.append(await sync_to_async(log_settings_change)(user_id, store.scope, peer_id, {}))
    return events
