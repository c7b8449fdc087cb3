"""The group calls page: live voice chats and streams with their participants, and the
operator's "end call" (the domain's discard: members see it end, history keeps the
"ended" message with its duration)."""

from __future__ import annotations

from django.contrib import admin, messages

from calls_app.models import GroupCall, GroupCallParticipant
from edge_app.admin_readonly import ReadOnlyAdmin

from .. import moderation
from .common import MODERATE, ModerationMixin, moderation_cap, unix_time


class LiveFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "live"

    def lookups(self, request, model_admin):
        return (("yes", "active or scheduled"), ("no", "ended"))

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(state="discarded")
        if self.value() == "no":
            return queryset.filter(state="discarded")
        return queryset


class ParticipantInline(ReadOnlyAdmin, admin.TabularInline):
    model = GroupCallParticipant
    extra = 0
    fields = ("peer_kind", "peer_id", "user_id", "source", "muted", "can_self_unmute", "raise_hand_rating",
              "video_shown", "joined", "alive")  # fmt: skip
    readonly_fields = fields
    ordering = ("pk",)

    @admin.display(description="video")
    def video_shown(self, obj) -> str:
        return ", ".join(k for k in ("video", "presentation") if getattr(obj, k)) or "-"

    @admin.display(description="joined")
    def joined(self, obj) -> str:
        return unix_time(obj.date)

    @admin.display(description="last sign of life")
    def alive(self, obj) -> str:
        return unix_time(obj.alive_at)


@admin.register(GroupCall)
class GroupCallAdmin(ReadOnlyAdmin, ModerationMixin, admin.ModelAdmin):
    list_display = ("id", "channel_id", "title", "state", "node", "participants_now", "started", "join_muted")
    list_filter = (LiveFilter, "state")
    search_fields = ("=id", "=channel_id")
    ordering = ("-date",)
    show_full_result_count = False
    inlines = (ParticipantInline,)
    actions = ("end_calls",)
    fields = ("id", "channel_id", "creator_id", "title", "state", "node", "date", "schedule_date", "start_date",
              "end_date", "duration", "join_muted", "version", "ended_by")  # fmt: skip
    readonly_fields = fields

    @admin.display(description="participants")
    def participants_now(self, obj) -> int:
        return obj.participants.count()

    @admin.display(description="started", ordering="start_date")
    def started(self, obj) -> str:
        return unix_time(obj.start_date) if obj.start_date else "scheduled"

    @admin.action(description="End the selected calls", permissions=[MODERATE])
    def end_calls(self, request, queryset):
        done = 0
        for call in queryset.exclude(state="discarded")[: moderation_cap()]:
            if self.run_moderation(request, f"end call {call.id}", moderation.end_group_call, call.id):
                done += 1
                self.audit(request, call.channel_id, f"ended group call {call.id}")
        if done:
            self.message_user(request, f"Ended {done} call(s).", messages.SUCCESS)
