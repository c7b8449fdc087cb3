"""Operator view of private calls: who called whom, when, how long, how it ended
(read-only; never media, and never the key exchange values). Searching a user id
lists that user's calls in both directions."""

import datetime as dt

from django.contrib import admin
from django.db.models import Q

from calls_app.models import PhoneCall


@admin.register(PhoneCall)
class PhoneCallAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "admin_id",
        "participant_id",
        "kind",
        "started",
        "duration",
        "outcome",
        "reason",
        "rating",
    )
    list_filter = ("outcome", "video", "state")
    search_fields = ("=admin_id", "=participant_id")
    ordering = ("-date",)
    show_full_result_count = False
    fields = (
        "id", "admin_id", "participant_id", "video", "state", "outcome", "reason", "discarded_by", "date",
        "receive_date", "start_date", "end_date", "duration", "p2p_allowed", "protocol", "rating", "comment",
        "log_saved",
    )  # fmt: skip
    readonly_fields = fields

    def get_search_results(self, request, queryset, search_term):
        # A user id lists the user's calls both ways (one query on each index).
        term = search_term.strip()
        if term.isdigit():
            return queryset.filter(Q(admin_id=int(term)) | Q(participant_id=int(term))), False
        return super().get_search_results(request, queryset, search_term)

    @admin.display(description="kind")
    def kind(self, obj):
        return "video" if obj.video else "voice"

    @admin.display(description="when", ordering="date")
    def started(self, obj):
        return dt.datetime.fromtimestamp(obj.date, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
