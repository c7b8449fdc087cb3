"""The client's InputMedia of the value kinds (dice, geo, venue, live location,
contact, poll) as a message's media; the rules are media_app.value_media's and
polls_app's."""

from __future__ import annotations

from media_app import value_media as vm
from polls_app import actions as polls
from polls_app import tl_convert as polls_tl
from tl import types
from tl.errors import GeoPointInvalidError, MediaInvalidError

VALUE_MEDIA = (
    types.InputMediaDice,
    types.InputMediaGeoPoint,
    types.InputMediaVenue,
    types.InputMediaGeoLive,
    types.InputMediaContact,
    types.InputMediaPoll,
)


def geo_from_tl(point) -> dict:
    if not isinstance(point, types.InputGeoPoint):
        raise GeoPointInvalidError()
    return vm.geo_point(point.lat, point.long, point.accuracy_radius)


async def value_media(me: int, media, *, broadcast: bool = False) -> dict:
    if isinstance(media, types.InputMediaDice):
        return vm.dice_media(media.emoticon)
    if isinstance(media, types.InputMediaGeoPoint):
        return vm.geo_media(geo_from_tl(media.geo_point))
    if isinstance(media, types.InputMediaVenue):
        return vm.venue_media(
            geo_from_tl(media.geo_point), media.title, media.address, media.provider, media.venue_id,
            media.venue_type,
        )  # fmt: skip
    if isinstance(media, types.InputMediaGeoLive):
        if media.stopped:
            raise MediaInvalidError()  # a new live location cannot start stopped
        return vm.live_media(
            geo_from_tl(media.geo_point), media.period, media.heading, media.proximity_notification_radius
        )
    if isinstance(media, types.InputMediaContact):
        user_id = await vm.account_of_phone(media.phone_number)
        return vm.contact_media(media.phone_number, media.first_name, media.last_name, media.vcard, user_id)
    if isinstance(media, types.InputMediaPoll):
        snapshot = await polls.do_create_poll(me, polls_tl.poll_spec(media), broadcast=broadcast)
        return {"kind": "poll", "poll": snapshot}
    raise MediaInvalidError()


async def edited_value_media(media, current: dict | None) -> dict | None:
    """editMessage with a value kind: a live location moved or stopped, or a poll
    closed ({"close_poll": id}: the caller closes it and answers with its update)."""
    if isinstance(media, types.InputMediaGeoLive):
        geo = geo_from_tl(media.geo_point) if isinstance(media.geo_point, types.InputGeoPoint) else None
        return vm.live_edit(
            current, geo, stopped=bool(media.stopped), period=media.period, heading=media.heading,
            radius=media.proximity_notification_radius,
        )  # fmt: skip
    if isinstance(media, types.InputMediaPoll):
        poll_id = polls.poll_id_of(current)
        if poll_id is None or not media.poll.closed:
            raise MediaInvalidError()  # a poll's text and answers are fixed; it can only close
        return {"close_poll": poll_id}
    raise MediaInvalidError()  # dice, contacts, venues and points cannot be edited
