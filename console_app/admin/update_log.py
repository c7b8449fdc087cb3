"""The channel update log page (events by pts), shown without secrets."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html

from ..models import UpdateEvent
from ..pagination import PartitionKeyFilter
from ..rowkeys import RowKeyAdmin
from .common import PeopleMixin, person_column, unix_time


class EventTypeFilter(admin.SimpleListFilter):
    title = "type"
    parameter_name = "type"
    TYPES = ("new_message", "edit_message", "delete_messages", "pin_messages", "noop")

    def lookups(self, request, model_admin):
        return tuple((t, t) for t in self.TYPES)

    def queryset(self, request, queryset):
        if self.value() in self.TYPES:
            return queryset.filter(type=self.value())
        return queryset


@admin.register(UpdateEvent)
class UpdateEventAdmin(PeopleMixin, RowKeyAdmin):
    people_fields = ("sender_user_id",)
    sender = person_column("sender_user_id", "sender")
    list_display = (
        "channel_id",
        "pts",
        "pts_count",
        "type",
        "date_shown",
        "message_id",
        "message_ids",
        "sender",
    )
    list_display_links = ("pts",)
    list_filter = (PartitionKeyFilter, EventTypeFilter)
    ordering = ("-channel_id", "-pts")
    keyset_field = "-pts"
    keyset_requires = "channel_id"
    fields = (
        "channel_id",
        "pts",
        "pts_count",
        "type",
        "date_shown",
        "message_id",
        "message_ids",
        "sender",
        "user_ids",
        "payload_shown",
    )
    readonly_fields = fields

    @admin.display(description="date")
    def date_shown(self, obj: UpdateEvent) -> str:
        return unix_time(obj.date)

    @admin.display(description="payload")
    def payload_shown(self, obj: UpdateEvent) -> str:
        import json

        return format_html(
            "<pre>{}</pre>", json.dumps(without_secrets(obj.payload), indent=1, ensure_ascii=False)[:20000]
        )


# Keys of stored snapshots that are credentials or internals, not what a person reads.
HIDDEN_KEYS = frozenset({"access_hash", "file_reference", "stripped", "sha256"})


def without_secrets(value):
    if isinstance(value, dict):
        return {k: without_secrets(v) for k, v in value.items() if k not in HIDDEN_KEYS}
    if isinstance(value, list):
        return [without_secrets(v) for v in value]
    return value
