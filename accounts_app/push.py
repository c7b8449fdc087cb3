"""Rendering of pushed account updates in each edge process (see edge_app.push)."""

from __future__ import annotations

from accounts_app import tl_convert
from accounts_app.updates import PUSH_KIND, Rendered, UserUpdate, render_event
from edge_app.push import renderer


@renderer(PUSH_KIND)
async def render_user_update(payload: dict, viewer_user_id: int):
    event = UserUpdate.from_json(payload)
    if viewer_user_id != event.user_id:
        return None  # account updates are for their owner's sessions only
    # An event with nothing to show still moves the session's pts over it.
    rendered = await render_event(event, viewer_user_id) or Rendered()
    return await tl_convert.push_updates_to_tl(event, rendered, viewer_user_id)
