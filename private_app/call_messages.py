"""The service message a private call leaves in both sides' history
(``messageActionPhoneCall``: video or voice, how it ended, how long it lasted).

It is an ordinary private message from the caller to the callee whose content is the
call's record (``media["call"]``), so both boxes, the account logs, getDifference and
the dialog list treat it like any other message. The call's id is the caller's random
id: recording one call twice (a retried end, two workers) stores one message.
"""

from __future__ import annotations

from .actions import PrivateChange, _write


def call_media(call_id: int, *, video: bool, reason: str, duration: int) -> dict:
    return {"call": {"id": call_id, "video": video, "reason": reason, "duration": duration}}


def is_call(media: dict | None) -> bool:
    return bool(media and media.get("call"))


async def do_record_call(
    caller_id: int, callee_id: int, call_id: int, *, video: bool, reason: str, duration: int
) -> PrivateChange:
    """Write the call's message into both histories and push it to every session of both."""
    item = {
        "message": "",
        "entities": [],
        "media": call_media(call_id, video=video, reason=reason, duration=duration),
    }
    return await _write(caller_id, callee_id, [item], [call_id], False, None)
