"""TL objects of the messages.* compatibility answers (``messages_app.rpc.compat``):
peer settings, message views, edit data, online counts, search counters / calendars /
positions, web-page previews, report steps, and the empty / notModified forms of lists
whose model (scheduled messages, reactions, stickers, custom emoji, polls, sponsored
messages) does not exist here. Channels, users, updates and channel message lists are
rendered by ``channels_app.tl_convert`` (reused here, never rebuilt)."""

from __future__ import annotations

from accounts_app.access import user_access_hash
from channels_app import tl_convert
from message_core import tl_convert as core_tl
from tl import types

# --- peer bar, views, edit data, onlines ---------------------------------------------


def peer_settings_to_tl(chats: list, users: list):
    """No spam / add-contact bar: the default (empty) peerSettings."""
    return types.messages.PeerSettings(settings=types.PeerSettings(), chats=chats, users=users)


def _message_view_to_tl(m: dict | None, channel: dict | None, replies: dict[int, tuple[int, int]]):
    if m is None or channel is None or m.get("empty") or m.get("action"):
        return types.MessageViews()
    if channel["broadcast"]:
        return types.MessageViews(
            views=core_tl.post_views(m.get("views_count")),
            forwards=m.get("forwards_count") or 0,
            replies=tl_convert.replies_of(m, True),
        )
    n, top = replies.get(m["id"], (0, 0))
    return types.MessageViews(
        replies=types.MessageReplies(replies=n, replies_pts=channel["pts"], max_id=top or None)
    )


def message_views_to_tl(
    messages: list[dict | None],
    channel: dict | None,
    replies: dict[int, tuple[int, int]],
    chats: list,
    users: list,
):
    """One messageViews per message, in order. ``None`` (or any message outside a
    channel), an empty and a service message get the empty entry; a broadcast post
    its views (at least 1) and forwards; a megagroup message its thread's ``replies[id]`` =
    (count, top id) at the channel's pts."""
    return types.messages.MessageViews(
        views=[_message_view_to_tl(m, channel, replies) for m in messages], chats=chats, users=users
    )


def message_edit_data_to_tl():
    """Text-only editing: the caption flag is never set."""
    return types.messages.MessageEditData(caption=False)


def chat_onlines_to_tl(n: int):
    return types.ChatOnlines(onlines=n)


def sponsored_messages_empty_to_tl():
    return types.messages.SponsoredMessagesEmpty()


# --- search ------------------------------------------------------------------------------


def search_counters_to_tl(counts: list[tuple]):
    """``counts``: (filter, count, inexact) per requested filter, in order."""
    return [
        types.messages.SearchCounter(filter=f, count=count, inexact=inexact) for f, count, inexact in counts
    ]


def empty_search_calendar_to_tl(offset_date: int, offset_id: int):
    """No period matches; the request's offsets are echoed as the minimum reached."""
    return types.messages.SearchResultsCalendar(
        count=0,
        min_date=offset_date,
        min_msg_id=offset_id,
        periods=[],
        messages=[],
        chats=[],
        users=[],
    )


def empty_search_positions_to_tl():
    return types.messages.SearchResultsPositions(count=0, positions=[])


def search_calendar_to_tl(cal, messages: list, chats: list, users: list):
    return types.messages.SearchResultsCalendar(
        inexact=cal.inexact or None, count=cal.count, min_date=cal.min_date, min_msg_id=cal.min_msg_id,
        offset_id_offset=cal.offset_id_offset,
        periods=[types.SearchResultsCalendarPeriod(**p) for p in cal.periods],
        messages=messages, chats=chats, users=users,
    )  # fmt: skip


def search_positions_to_tl(count: int, found: list[tuple[int, int, int]]):
    return types.messages.SearchResultsPositions(
        count=count, positions=[types.SearchResultPosition(msg_id=m, date=d, offset=o) for m, d, o in found]
    )


# --- web pages, message lists --------------------------------------------------------------


def empty_web_page_preview_to_tl():
    return types.messages.WebPagePreview(media=types.MessageMediaEmpty(), chats=[], users=[])


def empty_web_page_to_tl(url: str):
    return types.messages.WebPage(webpage=types.WebPageEmpty(id=0, url=url), chats=[], users=[])


def empty_messages_to_tl(channel_pts: int | None = None):
    """An empty message list: messages.channelMessages at ``channel_pts`` when given,
    else a plain messages.messages."""
    if channel_pts is not None:
        return tl_convert.empty_channel_messages_to_tl(channel_pts)
    return types.messages.Messages(messages=[], topics=[], chats=[], users=[])


# --- reports -------------------------------------------------------------------------------


def report_options_to_tl(options, title: str = "Report"):
    """The first report step: ``options`` are (option bytes, text) pairs to choose from."""
    return types.ReportResultChooseOption(
        title=title,
        options=[types.MessageReportOption(text=text, option=opt) for opt, text in options],
    )


def report_add_comment_to_tl(option: bytes, *, optional: bool = False):
    return types.ReportResultAddComment(optional=optional, option=option)


def report_reported_to_tl():
    return types.ReportResultReported()


def sponsored_report_reported_to_tl():
    return types.channels.SponsoredMessageReportResultReported()


# --- empty hashed lists (notModified when the client already holds the empty list) -------


def empty_reactions_to_tl(*, not_modified: bool):
    if not_modified:
        return types.messages.ReactionsNotModified()
    return types.messages.Reactions(hash=0, reactions=[])


# --- empty paged lists -----------------------------------------------------------------------


def empty_votes_list_to_tl():
    return types.messages.VotesList(count=0, votes=[], chats=[], users=[])


# --- chat folders ---------------------------------------------------------------------------


def _folder_input_peer(viewer_id: int, kind: str, peer_id: int, channel_hashes: dict[int, int]):
    if kind == "c":
        return types.InputPeerChannel(channel_id=peer_id, access_hash=channel_hashes.get(peer_id) or 0)
    if peer_id == viewer_id:
        return types.InputPeerSelf()
    return types.InputPeerUser(user_id=peer_id, access_hash=user_access_hash(viewer_id, peer_id))


def dialog_filter_to_tl(viewer_id: int, filter_id: int, folder: dict | None, chats: list):
    """A stored folder (messages_app.dialog_filters) with its peers as the viewer's input
    peers; ``None`` is "All chats"."""
    if folder is None:
        return types.DialogFilterDefault()
    hashes = {c.id: getattr(c, "access_hash", 0) for c in chats}

    def peers(key: str) -> list:
        return [_folder_input_peer(viewer_id, k, i, hashes) for k, i in folder[key]]

    title = types.TextWithEntities(
        text=folder["title"], entities=core_tl.entities_to_tl(folder["title_entities"])
    )
    common = {
        "title_noanimate": folder["title_noanimate"],
        "id": filter_id,
        "title": title,
        "emoticon": folder["emoticon"],
        "color": folder["color"],
        "pinned_peers": peers("pinned"),
        "include_peers": peers("include"),
    }
    if folder["chatlist"]:
        return types.DialogFilterChatlist(has_my_invites=bool(folder.get("has_my_invites")), **common)
    return types.DialogFilter(**folder["flags"], **common, exclude_peers=peers("exclude"))


def dialog_filters_to_tl(viewer_id: int, folders: list[tuple[int, dict | None]], chats: list):
    return types.messages.DialogFilters(
        filters=[dialog_filter_to_tl(viewer_id, fid, folder, chats) for fid, folder in folders]
    )


def suggested_filters_to_tl(viewer_id: int, suggestions: list[tuple[dict, str]]):
    return [
        types.DialogFilterSuggested(filter=dialog_filter_to_tl(viewer_id, 0, folder, []), description=text)
        for folder, text in suggestions
    ]


def dialog_filter_update_to_tl(viewer_id: int, filter_id: int, folder: dict | None, chats: list):
    return types.UpdateDialogFilter(
        id=filter_id, filter=dialog_filter_to_tl(viewer_id, filter_id, folder, chats) if folder else None
    )


def dialog_filter_order_update_to_tl(order: list[int]):
    return types.UpdateDialogFilterOrder(order=order)


def empty_peer_stories_to_tl(user_id: int, channel_id: int, chats: list, users: list):
    peer = types.PeerUser(user_id=user_id) if user_id else types.PeerChannel(channel_id=channel_id)
    return types.stories.PeerStories(
        stories=types.PeerStories(peer=peer, stories=[]), chats=chats, users=users
    )
