"""The channel admin log page."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html

from .. import people
from ..admin_log_text import admin_log_text
from ..media import photo_html
from ..models import AdminLogEvent
from ..pagination import PartitionKeyFilter, user_id_filter
from ..rowkeys import RowKeyAdmin
from .common import PeopleMixin, person_column, unix_time


class AdminLogTypeFilter(admin.SimpleListFilter):
    title = "event type"
    parameter_name = "event_type"

    def lookups(self, request, model_admin):
        from channels_app.actions.admin_log import EVENT_TYPES

        return tuple((t, t.replace("_", " ")) for t in sorted(EVENT_TYPES))

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(event_type=self.value()[:32])
        return queryset


class RecentFilter(admin.SimpleListFilter):
    title = "date"
    parameter_name = "since"
    PERIODS = {"1d": 86400, "7d": 7 * 86400, "30d": 30 * 86400}

    def lookups(self, request, model_admin):
        return (("1d", "past 24 hours"), ("7d", "past 7 days"), ("30d", "past 30 days"))

    def queryset(self, request, queryset):
        seconds = self.PERIODS.get(self.value() or "")
        if seconds:
            import time

            return queryset.filter(date__gte=int(time.time()) - seconds)
        return queryset


@admin.register(AdminLogEvent)
class AdminLogEventAdmin(PeopleMixin, RowKeyAdmin):
    people_fields = ("actor_user_id", "target_user_id")
    actor = person_column("actor_user_id", "actor", zero="operator console")
    target = person_column("target_user_id", "target")
    list_display = ("channel_id", "id", "date_shown", "actor", "event_type_shown", "target", "summary")
    list_display_links = ("id",)
    list_filter = (
        PartitionKeyFilter,
        AdminLogTypeFilter,
        user_id_filter("actor_user_id", "actor (user id, 0 = operator)"),
        RecentFilter,
    )
    ordering = ("-channel_id", "-id")
    keyset_field = "-id"
    keyset_requires = "channel_id"
    # The stored data holds snapshots with access hashes and file references: the page
    # shows it in words (and a changed photo as the photo), never the raw JSON.
    fields = (
        "channel_id",
        "id",
        "date_shown",
        "actor",
        "event_type_shown",
        "target",
        "summary",
        "photo_shown",
    )
    readonly_fields = fields

    def people_extra(self, obj) -> set[int]:
        data = obj.data if isinstance(obj.data, dict) else {}
        ids = {data.get("approved_by") or 0, (data.get("participant") or {}).get("user_id") or 0}
        return {int(i) for i in ids if i}

    @admin.display(description="date")
    def date_shown(self, obj: AdminLogEvent) -> str:
        return unix_time(obj.date)

    @admin.display(description="event")
    def event_type_shown(self, obj: AdminLogEvent) -> str:
        return obj.event_type.replace("_", " ")

    @admin.display(description="what")
    def summary(self, obj: AdminLogEvent) -> str:
        return admin_log_summary(obj.event_type, obj.data, obj.query, people.display_names(obj))

    @admin.display(description="photo")
    def photo_shown(self, obj: AdminLogEvent) -> str:
        data = obj.data if isinstance(obj.data, dict) else {}
        if obj.event_type != "change_photo":
            return "-"
        return format_html(
            "before: {}<br>after: {}", photo_html(data.get("prev")), photo_html(data.get("new"))
        )


def admin_log_summary(event_type: str, data, query: str = "", names: dict[int, str] | None = None) -> str:
    """One line for an admin log event, in words (see ``admin_log_text``)."""
    names = names or {}
    return admin_log_text(event_type, data, query, lambda uid: names.get(int(uid or 0)) or f"user {uid}")
