"""Messages from the service account ("Telegram", 777000) into a user's private chat
with it: how login codes reach the account's other devices
(accounts_app.code_delivery)."""

from __future__ import annotations

import secrets

from accounts_app import code_delivery
from edge_app.orm_threads import in_thread

from .actions import do_send_private_message


async def send_service_message(user_id: int, text: str) -> None:
    await in_thread(code_delivery.ensure_service_user)()
    await do_send_private_message(code_delivery.SERVICE_USER_ID, user_id, text, secrets.randbits(62) + 1)


def install() -> None:
    code_delivery.register_in_app_sender(send_service_message)
