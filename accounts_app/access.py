"""Permission-checked lookups of users by what a client sent.

Access hashes follow Telegram's semantics: each viewer gets its own ``access_hash`` for a
user, and a hash a viewer once received keeps working. Both follow from deriving it
with an HMAC over ``(viewer, user)`` keyed by a server secret: nothing is stored, the
value never changes while the secret stays, and a viewer cannot forge another
viewer's hash or one for a user it was never shown.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from functools import lru_cache

from django.conf import settings

from tl import types
from tl.errors import PeerIdInvalidError, UserIdInvalidError


@lru_cache(maxsize=1)
def _secret() -> bytes:
    # A dedicated setting lets operators rotate SECRET_KEY (sessions, admin) without
    # invalidating every access hash clients hold; it falls back to a key derived from it.
    explicit = getattr(settings, "ACCESS_HASH_SECRET", "")
    base = explicit or settings.SECRET_KEY
    return hashlib.sha256(b"telesrv/user-access-hash/" + base.encode()).digest()


def user_access_hash(viewer_id: int, user_id: int) -> int:
    """The access_hash ``viewer_id`` gets for ``user_id`` (a signed 64-bit integer)."""
    digest = hmac.new(_secret(), struct.pack("<qq", viewer_id, user_id), hashlib.sha256).digest()
    return struct.unpack("<q", digest[:8])[0]


def check_user_access_hash(viewer_id: int, user_id: int, access_hash: int) -> bool:
    return hmac.compare_digest(
        struct.pack("<q", user_access_hash(viewer_id, user_id)), struct.pack("<q", access_hash)
    )


# The forms Telegram takes for a user, whichever of InputUser / InputPeer the schema
# names: Pyrogram-family clients send inputPeerUser where an InputUser goes
# (channels.editAdmin, messages.hideChatJoinRequest, ...), and the reverse is seen too.
_SELF = (types.InputUserSelf, types.InputPeerSelf)
_USER = (types.InputUser, types.InputPeerUser)


def _user_id_of(viewer_id: int, obj) -> int | None:
    """The user ``obj`` names if ``viewer_id`` may address it, else None."""
    if isinstance(obj, _SELF):
        return viewer_id
    if not isinstance(obj, _USER):
        return None
    if obj.user_id == viewer_id or (
        obj.user_id > 0 and check_user_access_hash(viewer_id, obj.user_id, obj.access_hash)
    ):
        return obj.user_id
    # inputUserFromMessage names a "min" user seen in a message; this server always
    # sends full users with access hashes, so clients have no reason to use it.
    return None


def check_input_user(viewer_id: int, input_user) -> int:
    """The user id an ``InputUser`` (or an ``InputPeer`` of a user) names, if
    ``viewer_id`` may address it.

    Raises ``UserIdInvalidError`` for an empty / unknown / wrongly hashed user. The
    check needs no database: a valid HMAC proves the server handed this viewer that user.
    Deleted users still resolve; callers that must refuse them check ``User.deleted``.
    """
    user_id = _user_id_of(viewer_id, input_user)
    if user_id is None:
        raise UserIdInvalidError()
    return user_id


def check_input_peer_user(viewer_id: int, input_peer) -> int:
    """The user id an ``InputPeer`` of a user (or an ``InputUser``) names; PEER_ID_INVALID
    otherwise."""
    user_id = _user_id_of(viewer_id, input_peer)
    if user_id is None:
        raise PeerIdInvalidError()
    return user_id


def is_input_user(obj) -> bool:
    """Whether ``obj`` is one of the forms naming a user (hash not checked)."""
    return isinstance(obj, _SELF + _USER)
