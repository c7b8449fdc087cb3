"""The Bot API's sendLocation, sendVenue, sendContact and sendDice: media_app's value
media (its checks), sent as sendPhoto's media are."""

from __future__ import annotations

from media_app import value_media as vm
from tl.errors import RpcError

from .errors import BadRequest
from .methods import BotRef, method, send_with_media
from .params import Params

DEFAULT_DICE = "🎲"


def _point(p: Params) -> dict:
    if not p.has("latitude") or not p.has("longitude"):
        raise BadRequest(
            'parameter "latitude" is required'
            if not p.has("latitude")
            else 'parameter "longitude" is required'
        )
    accuracy = p.float("horizontal_accuracy")
    if not 0 <= accuracy <= 1500:
        raise BadRequest("wrong horizontal accuracy specified")
    try:
        return vm.geo_point(p.float("latitude"), p.float("longitude"), int(accuracy) or None)
    except RpcError:
        raise BadRequest("wrong location specified") from None


def _int_or_none(p: Params, name: str) -> int | None:
    return p.int(name) if p.has(name) else None


@method("sendLocation")
async def send_location(bot: BotRef, p: Params):
    p.chat_id()
    geo = _point(p)
    if p.has("live_period"):
        try:
            media = vm.live_media(
                geo,
                p.int("live_period"),
                _int_or_none(p, "heading"),
                _int_or_none(p, "proximity_alert_radius"),
            )
        except RpcError:
            raise BadRequest(
                "wrong live location period, heading or proximity alert radius specified"
            ) from None
    else:
        media = vm.geo_media(geo)
    return await send_with_media(bot, p, media)


@method("sendVenue")
async def send_venue(bot: BotRef, p: Params):
    p.chat_id()
    geo = _point(p)
    if p.has("google_place_id"):
        provider, venue_id, venue_type = "gplaces", p.str("google_place_id"), p.str("google_place_type")
    else:
        provider, venue_id, venue_type = "foursquare", p.str("foursquare_id"), p.str("foursquare_type")
    if not (p.str("title") or "").strip():
        raise BadRequest("venue title must be non-empty")
    try:
        media = vm.venue_media(
            geo, p.str("title") or "", p.str("address") or "", provider if venue_id else "", venue_id or "",
            venue_type or "",
        )  # fmt: skip
    except RpcError:
        raise BadRequest("wrong venue specified") from None
    return await send_with_media(bot, p, media)


@method("sendContact")
async def send_contact(bot: BotRef, p: Params):
    p.chat_id()
    phone = (p.str("phone_number") or "").strip()
    first = (p.str("first_name") or "").strip()
    if not phone:
        raise BadRequest("phone number must be non-empty")
    if not first:
        raise BadRequest("contact first name must be non-empty")
    try:
        media = vm.contact_media(
            phone, first, p.str("last_name") or "", p.str("vcard") or "", await vm.account_of_phone(phone)
        )
    except RpcError:
        raise BadRequest("wrong contact specified") from None
    return await send_with_media(bot, p, media)


@method("sendDice")
async def send_dice(bot: BotRef, p: Params):
    p.chat_id()
    try:
        media = vm.dice_media(p.str("emoji") or DEFAULT_DICE)
    except RpcError:
        raise BadRequest("wrong emoji specified for dice") from None
    return await send_with_media(bot, p, media)
