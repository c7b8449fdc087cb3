"""Account settings <-> TL: notification settings, privacy rules, blocked peers."""

from __future__ import annotations

from tl import types

# --- notification settings ------------------------------------------------------------


def _sound_from_tl(sound) -> dict | None:
    if isinstance(sound, types.NotificationSoundDefault):
        return {"t": "default"}
    if isinstance(sound, types.NotificationSoundNone):
        return {"t": "none"}
    if isinstance(sound, types.NotificationSoundLocal):
        return {"t": "local", "title": sound.title, "data": sound.data}
    if isinstance(sound, types.NotificationSoundRingtone):
        return {"t": "ringtone", "id": sound.id}
    return None


def _sound_to_tl(sound: dict | None):
    if not sound:
        return None
    kind = sound.get("t")
    if kind == "none":
        return types.NotificationSoundNone()
    if kind == "local":
        return types.NotificationSoundLocal(title=sound.get("title", ""), data=sound.get("data", ""))
    if kind == "ringtone":
        return types.NotificationSoundRingtone(id=int(sound.get("id", 0)))
    return types.NotificationSoundDefault()


def notify_settings_from_tl(s) -> dict:
    """``InputPeerNotifySettings`` -> the settings dict of accounts_app.notify_settings."""
    return {
        "show_previews": s.show_previews,
        "silent": s.silent,
        "mute_until": s.mute_until,
        "sound": _sound_from_tl(s.sound),
        "stories_muted": s.stories_muted,
        "stories_hide_sender": s.stories_hide_sender,
        "stories_sound": _sound_from_tl(s.stories_sound),
    }


def peer_notify_settings_to_tl(d: dict | None):
    d = d or {}
    sound = _sound_to_tl(d.get("sound"))
    stories_sound = _sound_to_tl(d.get("stories_sound"))
    return types.PeerNotifySettings(
        show_previews=d.get("show_previews"),
        silent=d.get("silent"),
        mute_until=d.get("mute_until"),
        ios_sound=sound,
        android_sound=sound,
        other_sound=sound,
        stories_muted=d.get("stories_muted"),
        stories_hide_sender=d.get("stories_hide_sender"),
        stories_ios_sound=stories_sound,
        stories_android_sound=stories_sound,
        stories_other_sound=stories_sound,
    )


def kind_notify_settings_to_tl(d: dict | None):
    """A peer kind's settings: what is unset reads as Telegram's defaults (notify,
    previews on, not silent)."""
    full = {"show_previews": True, "silent": False, "mute_until": 0, **(d or {})}
    return peer_notify_settings_to_tl(full)


_KIND_PEERS = {
    "users": types.NotifyUsers,
    "chats": types.NotifyChats,
    "broadcasts": types.NotifyBroadcasts,
}


def notify_peer_to_tl(scope: str, peer_id: int):
    if scope in _KIND_PEERS:
        return _KIND_PEERS[scope]()
    if scope == "user":
        return types.NotifyPeer(peer=types.PeerUser(user_id=peer_id))
    return types.NotifyPeer(peer=types.PeerChannel(channel_id=peer_id))


def notify_settings_update_to_tl(payload: dict):
    scope = payload["scope"]
    settings = payload.get("settings") or {}
    if scope in _KIND_PEERS:
        rendered = kind_notify_settings_to_tl(settings)
    else:
        rendered = peer_notify_settings_to_tl(settings)
    return types.UpdateNotifySettings(
        peer=notify_peer_to_tl(scope, int(payload["peer_id"])), notify_settings=rendered
    )


def input_notify_kind(peer) -> str | None:
    """ "users" / "chats" / "broadcasts" for the kind forms of InputNotifyPeer."""
    if isinstance(peer, types.InputNotifyUsers):
        return "users"
    if isinstance(peer, types.InputNotifyChats):
        return "chats"
    if isinstance(peer, types.InputNotifyBroadcasts):
        return "broadcasts"
    return None
