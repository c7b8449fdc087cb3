"""Where a send comes from, for the flags Telegram puts on what it sends: a message the
scheduler sends carries ``from_scheduled`` in the sender's view. Set around the send by
the scheduler (``scheduling_app.actions.do_deliver``) and read by the chat kinds' writes,
so their send actions need no extra parameter on every path."""

from __future__ import annotations

from contextvars import ContextVar

FROM_SCHEDULED: ContextVar[bool] = ContextVar("from_scheduled", default=False)
