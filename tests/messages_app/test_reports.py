"""Users' reports reach the moderators' queue: each report method stores one row
(who, where, which messages, why) and bad input stores nothing."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from reports_app.models import Report
from tests.channels_app.test_messages_compat import answer, megagroup, peer_user, send, users  # noqa: F401
from tests.channels_app.test_rpc import call
from tl import functions, types
from tl.errors import RpcError

M = functions.messages


@sync_to_async
def stored() -> list[dict]:
    return list(
        Report.objects.order_by("id").values(
            "reporter_id",
            "source",
            "peer_kind",
            "peer_id",
            "message_ids",
            "subject_user_id",
            "reason",
            "comment",
        )
    )


async def test_messages_report_stores_only_the_final_step(users):  # noqa: F811
    a, b, _c = users
    ch, peer = await megagroup(a, b)
    spam = await send(b, peer, "cheap pills", 1)
    first = await answer(a, M.Report(peer=peer, id=[spam.id], option=b"", message=""))
    assert isinstance(first, types.ReportResultChooseOption)
    need_comment = await answer(a, M.Report(peer=peer, id=[spam.id], option=b"other", message=""))
    assert isinstance(need_comment, types.ReportResultAddComment)
    assert await stored() == []  # choosing a reason is not a report yet
    done = await answer(a, M.Report(peer=peer, id=[spam.id], option=b"spam", message="every day"))
    assert isinstance(done, types.ReportResultReported)
    assert await stored() == [
        {
            "reporter_id": a, "source": "messages.report", "peer_kind": "channel", "peer_id": ch.id,
            "message_ids": [spam.id], "subject_user_id": 0, "reason": "spam", "comment": "every day",
        }
    ]  # fmt: skip
    with pytest.raises(RpcError, match="OPTION_INVALID"):
        await answer(a, M.Report(peer=peer, id=[spam.id], option=b"nonsense", message=""))
    with pytest.raises(RpcError, match="MESSAGE_TOO_LONG"):
        await answer(a, M.Report(peer=peer, id=[spam.id], option=b"spam", message="x" * 513))
    assert len(await stored()) == 1


async def test_report_peer_spam_photo_reaction_and_channel_spam(users):  # noqa: F811
    a, b, _c = users
    ch, peer = await megagroup(a, b)
    spam = await send(b, peer, "cheap pills", 2)
    bob = peer_user(a, b)
    assert await answer(
        a, functions.account.ReportPeer(peer=bob, reason=types.InputReportReasonFake(), message="bot")
    )
    assert await answer(a, M.ReportSpam(peer=bob))
    assert await answer(a, M.ReportReaction(peer=peer, id=spam.id, reaction_peer=bob))
    ic = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    assert await call(a, functions.channels.ReportSpam(channel=ic, participant=bob, id=[spam.id])) is True
    rows = await stored()
    assert [(r["source"], r["peer_kind"], r["reason"], r["subject_user_id"]) for r in rows] == [
        ("account.reportPeer", "user", "fake", b),
        ("messages.reportSpam", "user", "spam", b),
        ("messages.reportReaction", "channel", "reaction", b),
        ("channels.reportSpam", "channel", "spam", b),
    ]
    assert rows[0]["comment"] == "bot" and rows[3]["message_ids"] == [spam.id]
    # a wrong access hash is refused and stores nothing
    with pytest.raises(RpcError, match="PEER_ID_INVALID"):
        await answer(a, M.ReportSpam(peer=peer_user(a, b, wrong=True)))
    with pytest.raises(RpcError, match="PHOTO_ID_INVALID"):
        await answer(
            a,
            functions.account.ReportProfilePhoto(
                peer=bob, photo_id=types.InputPhotoEmpty(), reason=types.InputReportReasonSpam(), message=""
            ),
        )
    with pytest.raises(RpcError, match="PHOTO_ID_INVALID"):
        await answer(
            a,
            functions.account.ReportProfilePhoto(
                peer=bob,
                photo_id=types.InputPhoto(id=404, access_hash=1, file_reference=b""),
                reason=types.InputReportReasonSpam(),
                message="",
            ),
        )
    assert len(await stored()) == 4
