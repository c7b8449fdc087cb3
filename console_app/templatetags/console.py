"""Template helpers of the console's own look (``templates/admin/``)."""

from __future__ import annotations

import datetime as dt

from django import template
from django.urls import reverse

register = template.Library()

BUSIEST = 10
RECENT_ACTIONS = 15


@register.filter
def console_unix_time(value) -> str:
    if not value:
        return "-"
    return dt.datetime.fromtimestamp(int(value), dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


@register.filter
def console_named(text) -> str:
    """A history line with bare user ids ("banned user 2") with the names put in."""
    from console_app.people import named_text

    return named_text(str(text))


@register.inclusion_tag("admin/console_start.html", takes_context=True)
def console_start_page(context):
    """The start page: what a moderator needs first. Each block only for staff who may
    open what it links to."""
    from django.contrib.admin.models import LogEntry

    from channels_app.models import Channel

    request = context["request"]
    staff = request.user
    out: dict = {"can_channels": staff.has_perm("channels_app.view_channel")}
    if out["can_channels"]:
        out["channel_search_url"] = reverse("admin:channels_app_channel_changelist")
        # Top-N by member count: one pass over the channels table (no index on the count).
        out["busiest"] = list(
            Channel.objects.filter(deleted=False)
            .order_by("-participants_count", "-id")
            .values("id", "title", "username", "participants_count", "top_message_date", "broadcast")[
                :BUSIEST
            ]
        )
        for c in out["busiest"]:
            c["url"] = reverse("admin:channels_app_channel_change", args=[c["id"]])
    # What staff did through the console (bans, deletions, revoked links, sessions ended):
    # Django's own log, which records the staff account.
    # Only about objects the viewer may open (a moderator sees no account actions).
    out["actions"] = list(
        LogEntry.objects.filter(content_type_id__in=_viewable_content_types(staff))
        .select_related("user")
        .order_by("-action_time")[:RECENT_ACTIONS]
    )
    if staff.has_perm("reports_app.view_report"):
        from reports_app.models import Report

        out["reports_url"] = reverse("admin:reports_app_report_changelist")
        out["open_reports"] = Report.objects.filter(status=Report.STATUS_OPEN)[:1000].count()
    out["admin_log_url"] = (
        reverse("admin:console_app_adminlogevent_changelist")
        if staff.has_perm("console_app.view_adminlogevent")
        else None
    )
    return out


def _viewable_content_types(staff) -> list[int]:
    from django.contrib import admin
    from django.contrib.contenttypes.models import ContentType

    models = [
        m for m in admin.site._registry if staff.has_perm(f"{m._meta.app_label}.view_{m._meta.model_name}")
    ]
    return [ct.id for ct in ContentType.objects.get_for_models(*models).values()] if models else []
