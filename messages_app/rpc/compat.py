"""The design's explicit answers for messages.* methods Telegram Desktop calls when it
opens a chat, whose model (media, polls, scheduled messages, sticker search, sponsored
messages, TTL) does not exist here (reactions, views and read receipts: ``reactions``).

Each handler checks its input caps and its peer first, exactly as the real method
would (a wrong access hash: CHANNEL_PRIVATE for a channel, PEER_ID_INVALID for a
user), then answers what the unchanged state looks like: the empty / zero /
notModified form of the result type, or a plain Telegram error for a change that
cannot be made. Nothing here stores anything, so a client is never told that state
exists that does not. Where the data does exist (common megagroups, online members,
thread replies, edit rights, read marks) the answer is real.
"""

from __future__ import annotations

from accounts_app import updates as account_log
from accounts_app.access import check_input_user
from channels_app import account_updates, actions, tl_convert
from channels_app.actions import media as channel_media
from channels_app.actions import peer_stats
from channels_app.actions import send_as as send_as_actions
from channels_app.actions.common import is_active, message_refs
from channels_app.actions.messages import require_editable
from channels_app.chat_context import chats_for
from channels_app.errors import (
    ChannelPrivateError,
    LimitInvalidError,
    MessageIdInvalidError,
    MessageTooLongError,
    OffsetInvalidError,
    PeerIdInvalidError,
    TtlPeriodInvalidError,
)
from edge_app.registry import rpc
from message_core import limits
from message_core import tl_convert as core_tl
from message_core.context import own_session, resolve_input_user, users_for, viewer
from private_app import actions as private_actions
from private_app import tl_convert as private_tl
from tl import functions, types
from tl.errors import (
    MediaInvalidError,
)

from .. import drafts, search_calendar, update_kinds
from .. import tl_convert as compat_tl
from ..peers import Peer, media_filter_kinds, resolve_peer, send_as_id

# Input caps (Telegram's where it has one, else the design's "bounded input" rule).
IDS_MAX = limits.GET_IDS_MAX
SEARCH_FILTERS_MAX = 32  # getSearchCounters: TDesktop asks for about ten media kinds
TODO_ITEMS_MAX = 30
READ_METRICS_MAX = 100
VOTES_LIMIT = 50
OFFSET_STRING_MAX = 64
URL_MAX = 2048
COMMON_CHATS_LIMIT = peer_stats.COMMON_CHATS_LIMIT
HISTORY_TTL_MAX = 366 * 86400


# --- the peer check ----------------------------------------------------------------------


def _ids(ids, cap: int = IDS_MAX) -> list[int]:
    if len(ids) > cap:
        raise LimitInvalidError()
    return list(ids)


def _limit(limit: int, cap: int) -> int:
    if limit < 0:
        raise LimitInvalidError()
    return min(limit, cap)


def _text(message: str, entities=None) -> None:
    if len(message) > limits.MESSAGE_MAX:
        raise MessageTooLongError()
    if entities is not None and len(entities) > limits.ENTITIES_MAX:
        from channels_app.errors import EntitiesTooLongError

        raise EntitiesTooLongError()


async def _account_pts(me: int) -> int:
    state = await private_actions.in_thread(account_log.get_state)(me)
    return state.pts


async def _affected_history(me: int, p: Peer):
    """Nothing read: the pts the client already has (the channel's, or the account's)."""
    pts = p.channel["pts"] if p.channel else await _account_pts(me)
    return core_tl.affected_history_to_tl(pts, 0, False)


def _empty_updates():
    return tl_convert.updates_to_tl([], [], [])


def _empty_messages(p: Peer):
    return compat_tl.empty_messages_to_tl(p.channel["pts"] if p.channel is not None else None)


def _holds_empty(req_hash: int) -> bool:
    """A cached list whose content is empty (hash 0): notModified when the client
    already holds that, else the empty list so a stale cache is cleared."""
    return req_hash == 0


# --- peer bar, views, contents, edit data ---------------------------------------------


@rpc(functions.messages.GetPeerSettings)
async def get_peer_settings(ctx, req: functions.messages.GetPeerSettings):
    """No spam / add-contact bar is ever offered (nothing decides one here)."""
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    users = await users_for(me, [p.user_id]) if p.user_id else []
    chats = await chats_for(me, [p.channel_id], {p.channel_id: (p.channel, p.member)}) if p.channel else []
    return compat_tl.peer_settings_to_tl(chats, users)


@rpc(functions.messages.HidePeerSettingsBar)
async def hide_peer_settings_bar(ctx, req: functions.messages.HidePeerSettingsBar):
    me = viewer(ctx)
    await resolve_peer(me, req.peer)
    return True  # there is no bar to hide


@rpc(functions.messages.GetMessageEditData)
async def get_message_edit_data(ctx, req: functions.messages.GetMessageEditData):
    """The message must exist, be visible and be editable by the viewer (its author,
    or an edit_messages admin of a broadcast channel). Text-only editing here: caption
    is never set."""
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    if not 0 < req.id <= limits.MAX_MESSAGE_ID:
        raise MessageIdInvalidError()
    if p.channel is None:
        found = (await private_actions.get_messages(me, [req.id]))[0]
        if found.get("empty") or found["peer_id"] != p.user_id:
            raise MessageIdInvalidError()
        private_actions.require_editable(found, me)
        return compat_tl.message_edit_data_to_tl()
    h = await actions.get_messages(me, p.channel_id, [req.id])
    if not is_active(h.member):
        raise ChannelPrivateError()
    require_editable(h.channel, h.member, h.messages[0], me)
    return compat_tl.message_edit_data_to_tl()


@rpc(functions.messages.GetOnlines)
async def get_onlines(ctx, req: functions.messages.GetOnlines):
    """Active members whose status is online now (bounded count)."""
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    if p.channel is None:
        raise PeerIdInvalidError()  # a chat method
    return compat_tl.chat_onlines_to_tl(await peer_stats.online_member_count(p.channel_id))


# --- common chats ------------------------------------------------------------------------


@rpc(functions.messages.GetCommonChats)
async def get_common_chats(ctx, req: functions.messages.GetCommonChats):
    me = viewer(ctx)
    limit = _limit(req.limit, COMMON_CHATS_LIMIT)
    if req.max_id < 0:
        raise OffsetInvalidError()
    other = check_input_user(me, req.user_id)
    ids = await peer_stats.common_channel_ids(me, other, max_id=req.max_id, limit=limit)
    return tl_convert.chats_to_tl(await chats_for(me, ids) if ids else [])


# --- drafts, receipts, sponsored messages -----------------------------------------------


@rpc(functions.messages.SaveDraft)
async def save_draft(ctx, req: functions.messages.SaveDraft):
    """The cloud draft of one dialog (an empty text clears it), logged for the owner's
    other devices. Text only: no media store."""
    me = viewer(ctx)
    _text(req.message, req.entities)
    p = await resolve_peer(me, req.peer)
    if req.media is not None and not isinstance(req.media, types.InputMediaWebPage):
        raise MediaInvalidError()
    reply = req.reply_to.reply_to_msg_id if isinstance(req.reply_to, types.InputReplyToMessage) else 0
    draft = await drafts.do_save_draft(
        me, ("c", p.channel_id) if p.channel else ("p", p.user_id), req.message,
        core_tl.entities_from_tl(req.entities, resolve_input_user(me)), reply_to_msg_id=reply,
        no_webpage=req.no_webpage,
    )  # fmt: skip
    if draft is not None:
        await account_updates.append(me, update_kinds.DRAFT, draft, exclude=own_session(ctx))
    return True


@rpc(functions.messages.GetAllDrafts)
async def get_all_drafts(ctx, req: functions.messages.GetAllDrafts):
    me = viewer(ctx)
    found = list((await drafts.get_drafts(me)).values())
    users = await users_for(me, [d["peer_id"] for d in found if d["kind"] == "p"])
    chats = await chats_for(me, [d["peer_id"] for d in found if d["kind"] == "c"])
    return tl_convert.updates_to_tl([core_tl.draft_update_to_tl(d) for d in found], users, chats)


@rpc(functions.messages.ClearAllDrafts)
async def clear_all_drafts(ctx, req: functions.messages.ClearAllDrafts):
    me = viewer(ctx)
    for draft in await drafts.do_clear_drafts(me):
        await account_updates.append(me, update_kinds.DRAFT, draft, exclude=own_session(ctx))
    return True


@rpc(functions.messages.ReceivedMessages)
async def received_messages(ctx, req: functions.messages.ReceivedMessages):
    viewer(ctx)
    if req.max_id < 0:
        raise MessageIdInvalidError()
    return []  # no push notifications to acknowledge


@rpc(functions.messages.GetSponsoredMessages)
async def get_sponsored_messages(ctx, req: functions.messages.GetSponsoredMessages):
    me = viewer(ctx)
    await resolve_peer(me, req.peer)
    return compat_tl.sponsored_messages_empty_to_tl()


@rpc(functions.messages.ViewSponsoredMessage, functions.messages.ClickSponsoredMessage)
async def sponsored_telemetry(ctx, req):
    viewer(ctx)
    return True  # no ads are served, nothing is recorded


# --- search helpers --------------------------------------------------------------------


async def _filter_count(me: int, p: Peer, f) -> tuple[int, bool]:
    """(count, inexact) of one shared-media filter: media kinds, all messages and pins
    count what there is; other filters (geo, chat photos, ...) count 0."""
    if isinstance(f, types.InputMessagesFilterEmpty):
        if p.channel is not None:
            h = await actions.get_history(me, p.channel_id, limit=1)
            return h.count, True
        h = await private_actions.get_history(me, p.user_id, limit=1)
        return h.count, False
    kinds = media_filter_kinds(f)
    if kinds is not None:
        if p.channel is not None:
            return await channel_media.count_media(me, p.channel_id, kinds)
        return await private_actions.count_media(me, p.user_id, kinds)
    if isinstance(f, types.InputMessagesFilterPinned) and p.channel is not None:
        ids = await actions.pinned_message_ids(p.channel_id, limits.HISTORY_LIMIT)
        return len(ids), len(ids) >= limits.HISTORY_LIMIT
    return 0, False


@rpc(functions.messages.GetSearchCounters)
async def get_search_counters(ctx, req: functions.messages.GetSearchCounters):
    me = viewer(ctx)
    if len(req.filters) > SEARCH_FILTERS_MAX:
        raise LimitInvalidError()
    p = await resolve_peer(me, req.peer)
    if req.saved_peer_id is not None:
        await resolve_peer(me, req.saved_peer_id)
    out = []
    for f in req.filters:
        if req.saved_peer_id is not None or req.top_msg_id:
            count, inexact = 0, False  # saved sublists and topics are not indexed
        else:
            count, inexact = await _filter_count(me, p, f)
        out.append((f, count, inexact))
    return compat_tl.search_counters_to_tl(out)


async def _media_dates(me: int, p: Peer, kinds: tuple[str, ...]) -> tuple[list[tuple[int, int]], bool]:
    cap = search_calendar.SCAN_MAX
    if p.channel is not None:
        dates = await channel_media.media_dates(me, p.channel_id, kinds, cap + 1)
    else:
        dates = await private_actions.media_dates(me, p.user_id, kinds, cap + 1)
    return dates[:cap], len(dates) > cap


@rpc(functions.messages.GetSearchResultsCalendar)
async def get_search_results_calendar(ctx, req: functions.messages.GetSearchResultsCalendar):
    """The days with messages of a shared-media filter, newest first from the offset,
    with each day's newest message. Other filters have no calendar: the request's
    offsets are echoed so the client does not ask for the same empty month again."""
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    if req.saved_peer_id is not None:
        await resolve_peer(me, req.saved_peer_id)
    kinds = media_filter_kinds(req.filter)
    if kinds is None or req.saved_peer_id is not None:
        return compat_tl.empty_search_calendar_to_tl(req.offset_date, req.offset_id)
    dates, capped = await _media_dates(me, p, kinds)
    cal = search_calendar.calendar(dates, req.offset_id, req.offset_date, capped=capped)
    ids = [period["max_msg_id"] for period in cal.periods][: limits.GET_IDS_MAX]
    if p.channel is not None:
        h = await actions.get_messages(me, p.channel_id, ids) if ids else None
        shown = [m for m in (h.messages if h else []) if m and not m.get("empty")]
        user_ids, channel_ids = set(), {p.channel_id}
        message_refs(shown, user_ids, channel_ids)
        messages = [tl_convert.message_to_tl(m, me) for m in shown]
    else:
        shown = [
            m for m in (await private_actions.get_messages(me, ids) if ids else []) if not m.get("empty")
        ]
        user_ids, channel_ids = {me}, set()
        private_actions.message_refs(shown, user_ids, channel_ids)
        messages = [private_tl.message_to_tl(m) for m in shown]
    users, chats = await users_for(me, user_ids), await chats_for(me, sorted(channel_ids))
    return compat_tl.search_calendar_to_tl(cal, messages, chats, users)


@rpc(functions.messages.GetSearchResultsPositions)
async def get_search_results_positions(ctx, req: functions.messages.GetSearchResultsPositions):
    """Where each message of a shared-media filter stands (its index from the newest),
    older than offset_id; other filters list none."""
    me = viewer(ctx)
    limit = _limit(req.limit, limits.HISTORY_LIMIT)
    p = await resolve_peer(me, req.peer)
    if req.saved_peer_id is not None:
        await resolve_peer(me, req.saved_peer_id)
    kinds = media_filter_kinds(req.filter)
    if kinds is None or req.saved_peer_id is not None:
        return compat_tl.empty_search_positions_to_tl()
    dates, _ = await _media_dates(me, p, kinds)
    return compat_tl.search_positions_to_tl(
        len(dates), search_calendar.positions(dates, req.offset_id, limit)
    )


# --- web pages and media ---------------------------------------------------------------


@rpc(functions.messages.GetExtendedMedia)
async def get_extended_media(ctx, req: functions.messages.GetExtendedMedia):
    me = viewer(ctx)
    _ids(req.id)
    await resolve_peer(me, req.peer)
    return _empty_updates()  # no paid media to reveal


# --- reports and telemetry ------------------------------------------------------------------


@rpc(functions.messages.ReportMessagesDelivery)
async def report_messages_delivery(ctx, req: functions.messages.ReportMessagesDelivery):
    me = viewer(ctx)
    _ids(req.id)
    await resolve_peer(me, req.peer)
    return True


@rpc(functions.messages.ReportReadMetrics)
async def report_read_metrics(ctx, req: functions.messages.ReportReadMetrics):
    me = viewer(ctx)
    if len(req.metrics) > READ_METRICS_MAX:
        raise LimitInvalidError()
    await resolve_peer(me, req.peer)
    return True


@rpc(functions.messages.ReportMusicListen)
async def report_music_listen(ctx, req: functions.messages.ReportMusicListen):
    viewer(ctx)
    return True


@rpc(functions.messages.ReportSponsoredMessage)
async def report_sponsored_message(ctx, req: functions.messages.ReportSponsoredMessage):
    viewer(ctx)
    return compat_tl.sponsored_report_reported_to_tl()


# --- reaction tags --------------------------------------------------------------------------


@rpc(functions.messages.GetDefaultTagReactions)
async def default_tag_reactions(ctx, req: functions.messages.GetDefaultTagReactions):
    """Saved-message tags are not assigned to messages here: no default tag list."""
    viewer(ctx)
    return compat_tl.empty_reactions_to_tl(not_modified=_holds_empty(req.hash))


# --- polls and to-do lists ----------------------------------------------------------------------


@rpc(
    functions.messages.AddPollAnswer,
    functions.messages.DeletePollAnswer,
    functions.messages.AppendTodoList,
    functions.messages.ToggleTodoCompleted,
)
async def poll_changes(ctx, req):
    """Polls here take no answers after creation and no message carries a to-do list."""
    me = viewer(ctx)
    if isinstance(req, functions.messages.AppendTodoList) and len(req.list) > TODO_ITEMS_MAX:
        raise LimitInvalidError()
    if isinstance(req, functions.messages.ToggleTodoCompleted) and (
        len(req.completed) > TODO_ITEMS_MAX or len(req.incompleted) > TODO_ITEMS_MAX
    ):
        raise LimitInvalidError()
    await resolve_peer(me, req.peer, preview=False)
    raise MessageIdInvalidError()


@rpc(functions.messages.GetUnreadPollVotes)
async def get_unread_poll_votes(ctx, req: functions.messages.GetUnreadPollVotes):
    me = viewer(ctx)
    _limit(req.limit, limits.HISTORY_LIMIT)
    p = await resolve_peer(me, req.peer)
    return _empty_messages(p)


@rpc(functions.messages.ReadPollVotes)
async def read_poll_votes(ctx, req: functions.messages.ReadPollVotes):
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    return await _affected_history(me, p)


# --- TTL, read dates, read participants, send-as, theme ------------------------------------------


@rpc(functions.messages.SetHistoryTTL)
async def set_history_ttl(ctx, req: functions.messages.SetHistoryTTL):
    """There is no auto-delete pipeline: turning the timer off (where it is off) changes
    nothing; any other period is refused as TTL_PERIOD_INVALID (the only valid one here
    is 0) rather than shown and never applied."""
    me = viewer(ctx)
    if not 0 <= req.period <= HISTORY_TTL_MAX:
        raise TtlPeriodInvalidError()
    p = await resolve_peer(me, req.peer, preview=False)
    if p.channel is not None:
        from channels_app.actions import admin

        _, member = await admin.load_for_actor(p.channel_id, me)
        admin.require_right(me, member, "change_info")
        if req.period or p.channel["ttl_period"]:
            raise TtlPeriodInvalidError()
        return tl_convert.updates_to_tl([], [], await chats_for(me, [p.channel_id]))
    if req.period:
        raise TtlPeriodInvalidError()
    return _empty_updates()


@rpc(functions.messages.SetDefaultHistoryTTL)
async def set_default_history_ttl(ctx, req: functions.messages.SetDefaultHistoryTTL):
    """messages.getDefaultHistoryTTL answers 0; only that can be "set"."""
    viewer(ctx)
    if not 0 <= req.period <= HISTORY_TTL_MAX or req.period:
        raise TtlPeriodInvalidError()
    return True


@rpc(functions.messages.SaveDefaultSendAs)
async def save_default_send_as(ctx, req: functions.messages.SaveDefaultSendAs):
    """The identity a send into this channel takes when it names none (stored in the
    user's dialog; channels.getFullChannel shows it as default_send_as)."""
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    if p.channel is None:
        raise PeerIdInvalidError()
    await send_as_actions.do_save_default(me, p.channel["id"], send_as_id(me, req.send_as))
    return True


@rpc(functions.messages.SetChatTheme)
async def set_chat_theme(ctx, req: functions.messages.SetChatTheme):
    """Chat themes are not stored: a private chat gets empty updates; a group or
    channel needs change_info and gets its own context back, unchanged."""
    me = viewer(ctx)
    if isinstance(req.theme, types.InputChatTheme) and len(req.theme.emoticon) > limits.TITLE_MAX:
        raise LimitInvalidError()
    p = await resolve_peer(me, req.peer, preview=False)
    if p.channel is None:
        return _empty_updates()
    from channels_app.actions import admin

    _, member = await admin.load_for_actor(p.channel_id, me)
    admin.require_right(me, member, "change_info")
    return tl_convert.updates_to_tl([], [], await chats_for(me, [p.channel_id]))
