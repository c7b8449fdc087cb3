"""The moderator and operator console: admin pages, one module per page for channels, members, messages, the
update log, auth keys and authorizations, plus the moderation actions.

Everything here is read-only: editing a row in place would skip the domain (no pts, no
push, no admin log). Changes happen through the actions, which call
``console_app.moderation`` (the domain actions, with the operator as actor).
"""

from __future__ import annotations

from django.contrib import admin

from . import (  # noqa: F401
    accounts,
    admin_log,
    auth_keys,
    channels,
    common,
    group_calls,
    invites,
    members,
    messages,
    update_log,
)
from .channels import ChannelAdmin  # noqa: F401
from .members import MemberAdmin  # noqa: F401
from .messages import MessageAdmin  # noqa: F401

# The console's own name everywhere Django would say "Django administration".
admin.site.site_header = "telesrv console"
admin.site.site_title = "telesrv console"
admin.site.index_title = "Start"
from .. import report_queue  # noqa: E402,F401  (the user reports queue)
