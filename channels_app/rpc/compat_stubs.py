"""The design's explicit compatibility answers for channel methods Telegram Desktop calls
whose real model does not exist here (Fragment usernames, anti-spam, recommendations,
paid search). Each checks its input and rights exactly as the real
method would, then answers what an unchanged state looks like, so a client never gets
METHOD_INVALID and never believes something was stored that was not. (Spam reports are
real: ``channels.reportSpam`` stores the report for the moderators' queue.)"""

from __future__ import annotations

from edge_app.registry import rpc
from message_core import limits
from message_core.context import viewer
from tl import functions, layers
from tl.errors import MegagroupGeoRequiredError

from .. import tl_convert
from ..actions import admin
from ..errors import ChannelInvalidError, LimitInvalidError
from .admin import checked_channel, state_updates

# What checkSearchPostsFlood reports: every query free (there is no paid search).
SEARCH_POSTS_DAILY = 10
BOOSTS_TO_UNBLOCK_MAX = 8  # Layer 225's bound


async def _require(me: int, input_channel, right: str) -> dict:
    channel, _ = await checked_channel(me, input_channel)
    _, member = await admin.load_for_actor(channel["id"], me)
    admin.require_right(me, member, right)
    return channel


@rpc(
    functions.channels.ReorderUsernames,
    functions.channels.ToggleUsername,
    functions.channels.DeactivateAllUsernames,
)
async def fragment_usernames(ctx, req):
    """Collectible (Fragment) usernames: none exist here; the main username is set only
    by channels.updateUsername, so these change nothing once the right is checked."""
    me = viewer(ctx)
    if isinstance(req, functions.channels.ReorderUsernames) and len(req.order) > limits.USERNAMES_MAX:
        raise LimitInvalidError()
    await _require(me, req.channel, "change_info")
    return True


@rpc(functions.channels.ReportSpam)
async def report_spam(ctx, req: functions.channels.ReportSpam):
    """A member's messages reported as spam from a group: stored for the moderators."""
    from accounts_app.access import check_input_peer_user
    from reports_app.actions import do_report_messages

    me = viewer(ctx)
    if len(req.id) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    channel, _ = await checked_channel(me, req.channel)
    if not channel["megagroup"]:
        raise ChannelInvalidError()
    spammer = check_input_peer_user(me, req.participant)
    await do_report_messages(
        me, "channels.reportSpam", "channel", channel["id"], list(req.id), "spam", subject_user_id=spammer
    )
    return True


@rpc(functions.channels.ReportAntiSpamFalsePositive)
async def report_antispam_false_positive(ctx, req):
    """No anti-spam deletes anything here, so there is nothing to undo once the right
    is checked."""
    me = viewer(ctx)
    await checked_channel(me, req.channel)
    await _require(me, req.channel, "delete_messages")
    return True


@rpc(functions.channels.ReadMessageContents)
async def read_message_contents(ctx, req: functions.channels.ReadMessageContents):
    """The contents of these messages were seen: their reactions are no longer unread
    for their author (the author's other sessions get the messages' reactions without
    the unread marks); voice notes and round videos among them are played and mentions
    read (updateChannelReadMessagesContents to the reader's other sessions, and to a
    sender whose message was played for the first time: "listened")."""
    from ..actions import media_read, reactions

    me = viewer(ctx)
    if len(req.id) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    channel, _ = await checked_channel(me, req.channel)
    await reactions.do_read_contents(me, channel["id"], list(req.id))
    await media_read.do_read_media(me, channel["id"], list(req.id))
    return True


@rpc(functions.channels.CheckSearchPostsFlood)
async def check_search_posts_flood(ctx, req: functions.channels.CheckSearchPostsFlood):
    viewer(ctx)
    if req.query is not None and len(req.query) > limits.SEARCH_QUERY_MAX:
        raise LimitInvalidError()
    return tl_convert.search_posts_flood_to_tl(SEARCH_POSTS_DAILY)


@rpc(functions.channels.SetBoostsToUnblockRestrictions)
async def set_boosts_to_unblock_restrictions(ctx, req: functions.channels.SetBoostsToUnblockRestrictions):
    me = viewer(ctx)
    if not 0 <= req.boosts <= BOOSTS_TO_UNBLOCK_MAX:
        raise LimitInvalidError()
    channel = await _require(me, req.channel, "ban_users")
    return await state_updates(me, channel["id"])


@rpc(functions.channels.SetMainProfileTab)
async def set_main_profile_tab(ctx, req: functions.channels.SetMainProfileTab):
    me = viewer(ctx)
    await _require(me, req.channel, "change_info")
    return True


@rpc(functions.channels.EditLocation)
async def edit_location(ctx, req: functions.channels.EditLocation):
    """Location-based groups do not exist here (createChannel refuses geo as well)."""
    me = viewer(ctx)
    await _require(me, req.channel, "change_info")
    raise MegagroupGeoRequiredError()


# --- sponsored messages, as layers 150-189 ask for them ----------------------------------
#
# Before layer 190 these were channels.* methods taking the channel (Telegram Desktop
# 4.6.5, layer 152, asks every time a group or channel opens); layer 229 has only the
# messages.* forms. The layers' own classes are registered by name: no ads are served.
LAST_LAYER_WITH_CHANNEL_SPONSORED = 189


def _old_function(name: str) -> type:
    return layers.old_class(LAST_LAYER_WITH_CHANNEL_SPONSORED, name)


@rpc(_old_function("channels.getSponsoredMessages"))
async def get_sponsored_messages(ctx, req):
    me = viewer(ctx)
    await checked_channel(me, req.channel)
    return tl_convert.sponsored_messages_empty_to_tl()


@rpc(_old_function("channels.viewSponsoredMessage"), _old_function("channels.clickSponsoredMessage"))
async def sponsored_telemetry(ctx, req):
    me = viewer(ctx)
    await checked_channel(me, req.channel)
    return True  # no ads are served, nothing is recorded


@rpc(_old_function("channels.reportSponsoredMessage"))
async def report_sponsored_message(ctx, req):
    me = viewer(ctx)
    await checked_channel(me, req.channel)
    return tl_convert.sponsored_report_reported_to_tl()
