"""Account settings <-> TL: notification settings, privacy rules, blocked peers."""

from __future__ import annotations

from tl import types
from tl.errors import RpcError

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


# --- blocked users ---------------------------------------------------------------------


def blocked_to_tl(rows: list, count: int, offset: int, users: list):
    blocked = [
        types.PeerBlocked(peer_id=types.PeerUser(user_id=uid), date=int(date.timestamp()))
        for uid, date in rows
    ]
    if offset == 0 and count <= len(rows):
        return types.contacts.Blocked(blocked=blocked, chats=[], users=users)
    return types.contacts.BlockedSlice(count=count, blocked=blocked, chats=[], users=users)


def peer_blocked_update_to_tl(payload: dict):
    return types.UpdatePeerBlocked(
        blocked=bool(payload["blocked"]), peer_id=types.PeerUser(user_id=int(payload["user_id"]))
    )


# --- privacy -------------------------------------------------------------------------

_KEYS = (
    ("status_timestamp", types.InputPrivacyKeyStatusTimestamp, types.PrivacyKeyStatusTimestamp),
    ("chat_invite", types.InputPrivacyKeyChatInvite, types.PrivacyKeyChatInvite),
    ("phone_call", types.InputPrivacyKeyPhoneCall, types.PrivacyKeyPhoneCall),
    ("phone_p2p", types.InputPrivacyKeyPhoneP2P, types.PrivacyKeyPhoneP2P),
    ("forwards", types.InputPrivacyKeyForwards, types.PrivacyKeyForwards),
    ("profile_photo", types.InputPrivacyKeyProfilePhoto, types.PrivacyKeyProfilePhoto),
    ("phone_number", types.InputPrivacyKeyPhoneNumber, types.PrivacyKeyPhoneNumber),
    ("added_by_phone", types.InputPrivacyKeyAddedByPhone, types.PrivacyKeyAddedByPhone),
    ("voice_messages", types.InputPrivacyKeyVoiceMessages, types.PrivacyKeyVoiceMessages),
    ("about", types.InputPrivacyKeyAbout, types.PrivacyKeyAbout),
    ("birthday", types.InputPrivacyKeyBirthday, types.PrivacyKeyBirthday),
    ("star_gifts_auto_save", types.InputPrivacyKeyStarGiftsAutoSave, types.PrivacyKeyStarGiftsAutoSave),
    ("no_paid_messages", types.InputPrivacyKeyNoPaidMessages, types.PrivacyKeyNoPaidMessages),
    ("saved_music", types.InputPrivacyKeySavedMusic, types.PrivacyKeySavedMusic),
)
_KEY_BY_INPUT = {cls: name for name, cls, _ in _KEYS}
_KEY_TL = {name: cls for name, _, cls in _KEYS}

_RULES = (
    ("allow_all", types.InputPrivacyValueAllowAll, types.PrivacyValueAllowAll),
    ("allow_contacts", types.InputPrivacyValueAllowContacts, types.PrivacyValueAllowContacts),
    ("allow_users", types.InputPrivacyValueAllowUsers, types.PrivacyValueAllowUsers),
    ("allow_chats", types.InputPrivacyValueAllowChatParticipants, types.PrivacyValueAllowChatParticipants),
    ("allow_close_friends", types.InputPrivacyValueAllowCloseFriends, types.PrivacyValueAllowCloseFriends),
    ("allow_premium", types.InputPrivacyValueAllowPremium, types.PrivacyValueAllowPremium),
    ("allow_bots", types.InputPrivacyValueAllowBots, types.PrivacyValueAllowBots),
    ("disallow_all", types.InputPrivacyValueDisallowAll, types.PrivacyValueDisallowAll),
    ("disallow_contacts", types.InputPrivacyValueDisallowContacts, types.PrivacyValueDisallowContacts),
    ("disallow_users", types.InputPrivacyValueDisallowUsers, types.PrivacyValueDisallowUsers),
    (
        "disallow_chats",
        types.InputPrivacyValueDisallowChatParticipants,
        types.PrivacyValueDisallowChatParticipants,
    ),
    ("disallow_bots", types.InputPrivacyValueDisallowBots, types.PrivacyValueDisallowBots),
)
_RULE_BY_INPUT = {cls: name for name, cls, _ in _RULES}
_RULE_TL = {name: cls for name, _, cls in _RULES}


def privacy_key_from_tl(key) -> str | None:
    return _KEY_BY_INPUT.get(type(key))


def privacy_rules_from_tl(rules: list, resolve_user) -> list[dict]:
    """InputPrivacyRule list -> rule dicts; ``resolve_user(input_user)`` gives a user id
    or raises (users the viewer may not address are left out)."""
    out = []
    for rule in rules:
        name = _RULE_BY_INPUT.get(type(rule))
        if name is None:
            continue
        if name in ("allow_users", "disallow_users"):
            ids = []
            for u in rule.users:
                try:
                    ids.append(resolve_user(u))
                except RpcError:
                    continue
            out.append({"t": name, "ids": ids})
        elif name in ("allow_chats", "disallow_chats"):
            out.append({"t": name, "ids": [int(c) for c in rule.chats]})
        else:
            out.append({"t": name})
    return out


def privacy_rule_list_to_tl(rules: list[dict]) -> list:
    out = []
    for rule in rules:
        cls = _RULE_TL[rule["t"]]
        if rule["t"] in ("allow_users", "disallow_users"):
            out.append(cls(users=list(rule["ids"])))
        elif rule["t"] in ("allow_chats", "disallow_chats"):
            out.append(cls(chats=list(rule["ids"])))
        else:
            out.append(cls())
    return out


def privacy_rules_to_tl(rules: list[dict], chats: list, users: list):
    return types.account.PrivacyRules(rules=privacy_rule_list_to_tl(rules), chats=chats, users=users)


def privacy_update_to_tl(payload: dict):
    return types.UpdatePrivacy(
        key=_KEY_TL[payload["key"]](), rules=privacy_rule_list_to_tl(payload.get("rules") or [])
    )


# --- two-step verification ------------------------------------------------------------


def _srp_algo(salt1: bytes, salt2: bytes, g: int, p: bytes):
    return types.PasswordKdfAlgoSHA256SHA256PBKDF2HMACSHA512iter100000SHA256ModPow(
        salt1=salt1, salt2=salt2, g=g, p=p
    )


def password_to_tl(state, g: int, p: bytes):
    """``account.password`` of a two_step.PasswordState."""
    current = {}
    if state.has_password:
        current = {
            "current_algo": _srp_algo(state.salt1, state.salt2, g, p),
            "srp_B": state.srp_b,
            "srp_id": state.srp_id,
            "hint": state.hint or None,
        }
    return types.account.Password(
        has_recovery=state.has_recovery,
        has_password=state.has_password,
        email_unconfirmed_pattern=state.email_unconfirmed_pattern or None,
        new_algo=_srp_algo(state.new_salt1, state.new_salt2, g, p),
        new_secure_algo=types.SecurePasswordKdfAlgoPBKDF2HMACSHA512iter100000(salt=state.new_secure_salt),
        secure_random=state.secure_random,
        pending_reset_date=int(state.pending_reset_date.timestamp()) if state.pending_reset_date else None,
        **current,
    )


def reset_password_to_tl(answer):
    """``account.ResetPasswordResult`` of a two_step.ResetAnswer."""
    if answer.done:
        return types.account.ResetPasswordOk()
    if answer.retry is not None:
        return types.account.ResetPasswordFailedWait(retry_date=int(answer.retry.timestamp()))
    return types.account.ResetPasswordRequestedWait(until_date=int(answer.until.timestamp()))


def srp_proof_from_tl(check):
    """InputCheckPasswordSRP -> (srp_id, A, M1), or None for inputCheckPasswordEmpty."""
    if isinstance(check, types.InputCheckPasswordSRP):
        return check.srp_id, bytes(check.A), bytes(check.M1)
    return None


def new_password_settings_from_tl(s) -> dict:
    """account.passwordInputSettings -> the fields of two_step.NewSettings."""
    out: dict = {"hint": s.hint, "email": s.email}
    algo = s.new_algo
    if algo is not None:
        out["set_password"] = True
        if isinstance(algo, types.PasswordKdfAlgoSHA256SHA256PBKDF2HMACSHA512iter100000SHA256ModPow):
            out.update(salt1=bytes(algo.salt1), salt2=bytes(algo.salt2), g=algo.g, p=bytes(algo.p))
            out["verifier"] = bytes(s.new_password_hash or b"")
    return out


def password_settings_to_tl(email: str):
    return types.account.PasswordSettings(email=email or None)


def password_recovery_to_tl(pattern: str):
    return types.auth.PasswordRecovery(email_pattern=pattern)
