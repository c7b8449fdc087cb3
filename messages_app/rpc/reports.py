"""Users' reports of chats, messages, profiles and reactions: each is checked as the
method's peer rules say and stored through ``reports_app`` for the moderators' queue
(the console's "user reports" page)."""

from __future__ import annotations

from channels_app.errors import MessageTooLongError, PeerIdInvalidError
from edge_app.registry import rpc
from message_core import limits
from message_core.context import viewer
from reports_app import actions as reports
from tl import functions, types
from tl.errors import LimitInvalidError, OptionInvalidError, PhotoIdInvalidError, RpcError

from .. import tl_convert as compat_tl
from ..peers import Peer, is_user_peer, peer_user_id, resolve_peer

IDS_MAX = limits.GET_IDS_MAX
REPORT_COMMENT_MAX = reports.COMMENT_MAX

# The report flow TDesktop walks: choose a reason, (maybe) add a comment, reported.
REPORT_OPTIONS = (
    (b"spam", "Spam"),
    (b"violence", "Violence"),
    (b"child_abuse", "Child abuse"),
    (b"illegal_drugs", "Illegal drugs"),
    (b"personal_details", "Personal details"),
    (b"pornography", "Pornography"),
    (b"copyright", "Copyright"),
    (b"other", "Other"),
)
REPORT_NEEDS_COMMENT = {b"other"}

REASONS = {
    types.InputReportReasonSpam: "spam",
    types.InputReportReasonViolence: "violence",
    types.InputReportReasonPornography: "pornography",
    types.InputReportReasonChildAbuse: "child_abuse",
    types.InputReportReasonCopyright: "copyright",
    types.InputReportReasonGeoIrrelevant: "geo_irrelevant",
    types.InputReportReasonFake: "fake",
    types.InputReportReasonIllegalDrugs: "illegal_drugs",
    types.InputReportReasonPersonalDetails: "personal_details",
    types.InputReportReasonOther: "other",
}


def _where(peer: Peer) -> tuple[str, int]:
    return ("channel", peer.channel_id) if peer.channel else ("user", peer.user_id)


def _comment(message: str) -> str:
    if len(message) > REPORT_COMMENT_MAX:
        raise MessageTooLongError()
    return message


def _reason(reason) -> str:
    return REASONS.get(type(reason), "other")


@rpc(functions.messages.Report)
async def report(ctx, req: functions.messages.Report):
    """TDesktop's step-by-step report: reasons, then a comment where one is needed,
    then reported (stored for the moderators)."""
    me = viewer(ctx)
    if len(req.id) > IDS_MAX:
        raise LimitInvalidError()
    comment = _comment(req.message)
    peer = await resolve_peer(me, req.peer)
    if not req.option:
        return compat_tl.report_options_to_tl(REPORT_OPTIONS)
    if req.option not in dict(REPORT_OPTIONS):
        raise OptionInvalidError()
    if req.option in REPORT_NEEDS_COMMENT and not comment.strip():
        return compat_tl.report_add_comment_to_tl(req.option, optional=False)
    kind, peer_id = _where(peer)
    await reports.do_report_messages(
        me, "messages.report", kind, peer_id, list(req.id), req.option.decode("ascii", "replace"), comment
    )
    return compat_tl.report_reported_to_tl()


@rpc(functions.messages.ReportSpam)
async def report_spam(ctx, req: functions.messages.ReportSpam):
    """The "report spam" bar of a chat with a stranger or a group one was added to."""
    me = viewer(ctx)
    peer = await resolve_peer(me, req.peer)
    kind, peer_id = _where(peer)
    await reports.do_report_peer(
        me, "messages.reportSpam", kind, peer_id, "spam", subject_user_id=peer.user_id
    )
    return True


@rpc(functions.account.ReportPeer)
async def report_peer(ctx, req: functions.account.ReportPeer):
    me = viewer(ctx)
    comment = _comment(req.message)
    peer = await resolve_peer(me, req.peer)
    kind, peer_id = _where(peer)
    await reports.do_report_peer(
        me, "account.reportPeer", kind, peer_id, _reason(req.reason), comment, subject_user_id=peer.user_id
    )
    return True


@rpc(functions.account.ReportProfilePhoto)
async def report_profile_photo(ctx, req: functions.account.ReportProfilePhoto):
    from media_app import actions as media_actions

    me = viewer(ctx)
    comment = _comment(req.message)
    peer = await resolve_peer(me, req.peer)
    if not isinstance(req.photo_id, types.InputPhoto):
        raise PhotoIdInvalidError()
    try:
        await media_actions.get_photo(req.photo_id.id, req.photo_id.access_hash)
    except RpcError as exc:  # its own error (PHOTO_INVALID) would name the wrong field
        raise PhotoIdInvalidError() from exc
    kind, peer_id = _where(peer)
    await reports.do_report_peer(
        me,
        "account.reportProfilePhoto",
        kind,
        peer_id,
        _reason(req.reason),
        comment,
        subject_user_id=peer.user_id,
        photo_id=req.photo_id.id,
    )
    return True


@rpc(functions.messages.ReportReaction)
async def report_reaction(ctx, req: functions.messages.ReportReaction):
    """A user's reaction to a message of a group the reporter is in."""
    me = viewer(ctx)
    peer = await resolve_peer(me, req.peer)
    if not is_user_peer(req.reaction_peer):
        raise PeerIdInvalidError()
    reacting = peer_user_id(me, req.reaction_peer)
    kind, peer_id = _where(peer)
    await reports.do_report_peer(
        me,
        "messages.reportReaction",
        kind,
        peer_id,
        "reaction",
        subject_user_id=reacting,
        message_ids=[req.id],
    )
    return True
