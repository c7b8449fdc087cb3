"""How codes reach people: e-mail through Django's e-mail framework (SMTP in
production: EMAIL_HOST / EMAIL_PORT ... settings), used for two-step recovery and
e-mail confirmation codes and for login codes sent by e-mail."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail

log = logging.getLogger("telesrv.delivery")


def send_email(to: str, subject: str, body: str) -> None:
    """Send one plain-text e-mail. A failure is logged, not raised: the action that
    asked for it is done, and the user can ask for the code again."""
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [to], fail_silently=False)
        log.info("e-mail %r sent to %s", subject, to)
    except Exception:
        log.exception("e-mail %r to %s failed", subject, to)
