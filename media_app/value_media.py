"""Media kinds that are values, not files: dice, geo points, venues, live locations,
contacts (and the rules each follows). They are stored in the message's media dict
like a photo's snapshot; ``tl_convert_kinds`` renders them."""

from __future__ import annotations

import secrets

from accounts_app.models import User
from accounts_app.phones import normalize_phone
from edge_app.orm_threads import in_thread
from message_core.clock import now
from tl.errors import (
    EmoticonInvalidError,
    GeoPointInvalidError,
    MediaInvalidError,
    PeriodInvalidError,
    RpcError,
)

# The emoji the server rolls and the values each can show (Telegram's ranges; the
# client animates the value it is given).
DICE_VALUES = {
    "🎲": 6,
    "🎯": 6,
    "🏀": 5,
    "⚽": 5,
    "🎳": 6,
    "🎰": 64,
}
VARIATION_SELECTOR = "\ufe0f"

LIVE_PERIOD_MIN, LIVE_PERIOD_MAX = 60, 86400
LIVE_FOREVER = 0x7FFFFFFF
HEADING_MAX = 360
PROXIMITY_MAX = 100_000
ACCURACY_MAX = 1500
CONTACT_NAME_MAX = 64
PHONE_MAX = 32
VCARD_MAX = 4096
VENUE_FIELD_MAX = 256


def dice_media(emoticon: str) -> dict:
    """A roll of the dice: the server picks the value."""
    emoticon = (emoticon or "").replace(VARIATION_SELECTOR, "")
    top = DICE_VALUES.get(emoticon)
    if top is None:
        raise EmoticonInvalidError()
    return {"kind": "dice", "dice": {"emoticon": emoticon, "value": 1 + secrets.randbelow(top)}}


def geo_point(lat: float | None, long: float | None, accuracy_radius: int | None = None) -> dict:
    if lat is None or long is None or not (-90 <= lat <= 90 and -180 <= long <= 180):
        raise GeoPointInvalidError()
    g = {"lat": float(lat), "long": float(long), "access_hash": secrets.randbits(63)}
    if accuracy_radius:
        g["accuracy_radius"] = max(0, min(int(accuracy_radius), ACCURACY_MAX))
    return g


def geo_media(geo: dict) -> dict:
    return {"kind": "geo", "geo": geo}


def _field(value: str | None, cap: int) -> str:
    value = value or ""
    if len(value) > cap:
        raise MediaInvalidError()
    return value


def venue_media(geo: dict, title: str, address: str, provider: str, venue_id: str, venue_type: str) -> dict:
    if not (title or "").strip():
        raise MediaInvalidError()
    return {
        "kind": "venue",
        "geo": geo,
        "venue": {
            "title": _field(title, VENUE_FIELD_MAX), "address": _field(address, VENUE_FIELD_MAX),
            "provider": _field(provider, 64), "venue_id": _field(venue_id, VENUE_FIELD_MAX),
            "venue_type": _field(venue_type, 64),
        },
    }  # fmt: skip


def _live_fields(heading: int | None, radius: int | None) -> dict:
    out = {}
    if heading is not None:
        if not 1 <= heading <= HEADING_MAX:
            raise MediaInvalidError()
        out["heading"] = int(heading)
    if radius is not None:
        if not 0 <= radius <= PROXIMITY_MAX:
            raise MediaInvalidError()
        out["proximity_notification_radius"] = int(radius)
    return out


def _check_period(period: int | None) -> int:
    if period is None:
        period = LIVE_PERIOD_MIN * 15  # Telegram's clients offer 15 minutes first
    if period != LIVE_FOREVER and not LIVE_PERIOD_MIN <= period <= LIVE_PERIOD_MAX:
        raise PeriodInvalidError()
    return int(period)


def live_media(geo: dict, period: int | None, heading: int | None, radius: int | None) -> dict:
    """A new live location: shared for ``period`` seconds from now."""
    live = {"period": _check_period(period), "date": now(), **_live_fields(heading, radius)}
    return {"kind": "geo_live", "geo": geo, "live": live}


def live_edit(
    current: dict | None, geo: dict | None, *, stopped: bool, period: int | None, heading, radius
) -> dict:
    """A live location moved, extended or stopped: only a running one can change."""
    if not current or current.get("kind") != "geo_live":
        raise MediaInvalidError()
    live = dict(current["live"])
    t = now()
    if live.get("stopped_at") or (live["period"] != LIVE_FOREVER and live["date"] + live["period"] <= t):
        raise MediaInvalidError()  # it has ended: nothing more to share
    if stopped:
        live["stopped_at"] = t
        live.pop("heading", None)
        return {**current, "live": live}
    if period is not None:
        # Telegram extends a running one: the new period counts from its start.
        live["period"] = _check_period(period)
    live.update(_live_fields(heading, radius))
    return {**current, "geo": geo or current["geo"], "live": live}


@in_thread
def account_of_phone(phone: str) -> int:
    """The account a shared contact's phone number belongs to (0: none, or not a
    number): the contact then names it."""
    try:
        digits = normalize_phone(phone)
    except RpcError:
        return 0
    return User.objects.filter(phone=digits, deleted=False).values_list("id", flat=True).first() or 0


def contact_media(phone: str, first_name: str, last_name: str, vcard: str, user_id: int) -> dict:
    if not (first_name or "").strip() or not (phone or "").strip():
        raise MediaInvalidError()
    return {
        "kind": "contact",
        "contact": {
            "phone_number": _field(phone, PHONE_MAX), "first_name": _field(first_name, CONTACT_NAME_MAX),
            "last_name": _field(last_name, CONTACT_NAME_MAX), "vcard": _field(vcard, VCARD_MAX),
            "user_id": user_id,
        },
    }  # fmt: skip


PLAYED_KINDS = ("voice", "round")


def plays_once(media: dict | None) -> bool:
    """A voice note or round video: unread for its recipients until played."""
    return bool(media) and media.get("kind") in PLAYED_KINDS


def media_user_ids(media: dict | None) -> set[int]:
    """Users a message's media names (a shared contact's account, a public poll's
    newest voters): every answer that shows the media names them too."""
    if not media:
        return set()
    out = set()
    if media.get("kind") == "contact" and media["contact"].get("user_id"):
        out.add(media["contact"]["user_id"])
    results = media.get("results")
    if results and media.get("poll", {}).get("public_voters"):
        out.update(results.get("recent") or ())
    return out
