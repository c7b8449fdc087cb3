"""Operator view of scheduled messages: what waits to be sent, by whom, where and when
(read-only; a sender deletes or sends them through the client)."""

import datetime as dt

from django.contrib import admin

from edge_app.admin_readonly import ReadOnlyAdmin
from scheduling_app.actions import WHEN_ONLINE
from scheduling_app.models import ScheduledMessage


@admin.register(ScheduledMessage)
class ScheduledMessageAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("id", "owner_id", "chat", "send_at", "text", "claimed_until")
    list_filter = ("peer_kind",)
    search_fields = ("=owner_id", "=peer_id")
    ordering = ("date", "id")
    show_full_result_count = False
    readonly_fields = [f.name for f in ScheduledMessage._meta.fields]

    @admin.display(description="chat")
    def chat(self, obj):
        return f"{'user' if obj.peer_kind == 'p' else 'channel'} {obj.peer_id}"

    @admin.display(description="send at")
    def send_at(self, obj):
        if obj.date == WHEN_ONLINE:
            return "when online"
        return dt.datetime.fromtimestamp(obj.date, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")

    @admin.display(description="text")
    def text(self, obj):
        kind = (obj.media or {}).get("kind")
        return (f"[{kind}] " if kind else "") + (obj.message or "")[:80]
