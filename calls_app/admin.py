"""Operator view of private calls: who called whom, when, how long, how it ended
(read-only; never media, and never the key exchange values). Searching a user id
lists that user's calls in both directions."""

import datetime as dt

from django.contrib import admin
from django.db.models import Q

from accounts_app.models import User
from calls_app.models import PhoneCall
from edge_app.admin_readonly import ReadOnlyAdmin


@admin.register(PhoneCall)
class PhoneCallAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = (
        "id",
        "caller",
        "callee",
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

    def get_changelist_instance(self, request):
        # The page's users' names in one query, kept on the page's rows.
        cl = super().get_changelist_instance(request)
        ids = {c.admin_id for c in cl.result_list} | {c.participant_id for c in cl.result_list}
        names = {
            uid: " ".join(p for p in (first, last) if p)
            for uid, first, last in User.objects.filter(id__in=ids).values_list(
                "id", "first_name", "last_name"
            )
        }
        for c in cl.result_list:
            c.names = names
        return cl

    @staticmethod
    def _who(obj, user_id: int) -> str:
        name = getattr(obj, "names", {}).get(user_id)
        return f"{name} ({user_id})" if name else str(user_id)

    @admin.display(description="caller", ordering="admin_id")
    def caller(self, obj):
        return self._who(obj, obj.admin_id)

    @admin.display(description="callee", ordering="participant_id")
    def callee(self, obj):
        return self._who(obj, obj.participant_id)

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
