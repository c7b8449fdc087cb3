"""Console pages that are not a model's list: the pts state of a channel."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.views import View

from .pts_audit import WINDOW, channel_pts_state


class PtsStateView(View):
    """Per channel: channels.pts vs the Redis counter vs MAX(pts) of the update log, and
    the holes and noop fills among its newest events (operators only)."""

    model_admin = None

    def get(self, request, channel_id: int):
        if not request.user.has_perm("console_app.view_pts_state"):
            raise PermissionDenied
        state = channel_pts_state(channel_id)
        context = {
            **self.model_admin.admin_site.each_context(request),
            "title": f"pts state of channel {channel_id}",
            "opts": self.model_admin.model._meta,
            "state": state,
            "window": WINDOW,
            "redis_ahead": (
                state.redis_pts - state.log_max_pts
                if state.redis_pts is not None and state.redis_pts > state.log_max_pts
                else 0
            ),
        }
        return TemplateResponse(
            request, "console_app/pts_state.html", context, status=200 if state.found else 404
        )
