"""Domain actions of user reports: storing what a user reported (the RPC handlers call
these after their permission-checked lookups) and closing a report (the console).

A reporter repeating the same report (same place, same messages) while it is open
updates it instead of adding a row; a reporter's open reports are capped, past the cap
the oldest open one is replaced, so one user cannot fill the queue."""

from __future__ import annotations

import time

from django.db import transaction

from edge_app.orm_threads import in_thread

from .models import Report

REASONS = frozenset(
    {
        "spam",
        "violence",
        "pornography",
        "child_abuse",
        "copyright",
        "geo_irrelevant",
        "fake",
        "illegal_drugs",
        "personal_details",
        "other",
        "reaction",
    }
)
COMMENT_MAX = 512
MESSAGE_IDS_MAX = 100
OPEN_PER_REPORTER_MAX = 200
PEER_KINDS = ("channel", "user")


def _store(
    reporter_id: int,
    source: str,
    peer_kind: str,
    peer_id: int,
    *,
    reason: str,
    comment: str = "",
    message_ids=(),
    subject_user_id: int = 0,
    photo_id: int = 0,
) -> Report:
    if peer_kind not in PEER_KINDS:
        raise ValueError(peer_kind)
    reason = reason if reason in REASONS else "other"
    ids = sorted({int(i) for i in message_ids if int(i) > 0})[:MESSAGE_IDS_MAX]
    comment = comment[:COMMENT_MAX]
    with transaction.atomic():
        same = (
            Report.objects.select_for_update()
            .filter(
                reporter_id=reporter_id,
                status=Report.STATUS_OPEN,
                source=source,
                peer_kind=peer_kind,
                peer_id=peer_id,
                message_ids=ids,
                subject_user_id=subject_user_id,
                photo_id=photo_id,
            )
            .first()
        )
        if same is not None:
            same.reason, same.comment, same.date = reason, comment or same.comment, int(time.time())
            same.save(update_fields=["reason", "comment", "date"])
            return same
        open_ids = list(
            Report.objects.filter(reporter_id=reporter_id, status=Report.STATUS_OPEN)
            .order_by("-id")
            .values_list("id", flat=True)[OPEN_PER_REPORTER_MAX - 1 : OPEN_PER_REPORTER_MAX + 50]
        )
        if open_ids:
            Report.objects.filter(id__in=open_ids).delete()
        return Report.objects.create(
            reporter_id=reporter_id,
            source=source,
            peer_kind=peer_kind,
            peer_id=peer_id,
            message_ids=ids,
            subject_user_id=subject_user_id,
            photo_id=photo_id,
            reason=reason,
            comment=comment,
            date=int(time.time()),
        )


@in_thread
def do_report_messages(
    reporter_id: int,
    source: str,
    peer_kind: str,
    peer_id: int,
    message_ids,
    reason: str,
    comment: str = "",
    *,
    subject_user_id: int = 0,
) -> Report:
    """messages.report / channels.reportSpam: these messages of that chat (by that
    member, for channels.reportSpam)."""
    return _store(
        reporter_id,
        source,
        peer_kind,
        peer_id,
        reason=reason,
        comment=comment,
        message_ids=message_ids,
        subject_user_id=subject_user_id,
    )


@in_thread
def do_report_peer(
    reporter_id: int,
    source: str,
    peer_kind: str,
    peer_id: int,
    reason: str,
    comment: str = "",
    *,
    subject_user_id: int = 0,
    photo_id: int = 0,
    message_ids=(),
) -> Report:
    """account.reportPeer / messages.reportSpam / account.reportProfilePhoto /
    messages.reportReaction: a chat, a user, a profile photo or a reacting user."""
    return _store(
        reporter_id,
        source,
        peer_kind,
        peer_id,
        reason=reason,
        comment=comment,
        subject_user_id=subject_user_id,
        photo_id=photo_id,
        message_ids=message_ids,
    )


def do_close_report(report_id: int, staff_name: str, outcome: str, *, dismissed: bool = False) -> bool:
    """A moderator's decision on an open report; False when it was closed already."""
    status = Report.STATUS_DISMISSED if dismissed else Report.STATUS_RESOLVED
    changed = Report.objects.filter(id=report_id, status=Report.STATUS_OPEN).update(
        status=status, handled_by=staff_name[:150], handled_at=int(time.time()), outcome=outcome[:2000]
    )
    return bool(changed)
