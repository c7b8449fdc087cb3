"""The service message a private call leaves in both sides' history
(``messageActionPhoneCall``: video or voice, how it ended, how long it lasted).

It is a private service message from the caller to the callee (``do_send_private_service``,
action ``phone_call``), so both boxes, the account logs, getDifference and the dialog
list treat it like any other message, and it cannot be edited or forwarded. The call's
id is the caller's random id: recording one call twice (a retried end, two workers)
stores one message.
"""

from __future__ import annotations

from .actions import PrivateChange, do_send_private_service


def call_action(call_id: int, *, video: bool, reason: str, duration: int) -> dict:
    return {"type": "phone_call", "call_id": call_id, "video": video, "reason": reason, "duration": duration}


async def do_record_call(
    caller_id: int, callee_id: int, call_id: int, *, video: bool, reason: str, duration: int
) -> PrivateChange:
    """Write the call's message into both histories and push it to every session of both."""
    action = call_action(call_id, video=video, reason=reason, duration=duration)
    return await do_send_private_service(caller_id, callee_id, action, call_id)
