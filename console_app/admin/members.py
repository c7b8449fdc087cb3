"""The members page of a channel: status, role and restriction filters, moderation."""

from __future__ import annotations

from django.contrib import admin, messages

from channels_app.rights import ADMIN_FLAGS, BANNED_FLAGS

from .. import moderation, people
from ..confirm import confirmed
from ..models import Member
from ..pagination import PartitionKeyFilter
from ..rowkeys import RowKeyAdmin
from .common import (
    MODERATE,
    ChannelLinksMixin,
    ModerationMixin,
    PeopleMixin,
    moderation_cap,
    person_column,
    rights_names,
    unix_time,
)


class MemberStatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return (("active", "active"), ("left", "left"), ("kicked", "kicked (banned)"), ("banned", "banned"))

    def queryset(self, request, queryset):
        if self.value() in ("active", "left", "kicked", "banned"):
            return queryset.filter(status=self.value())
        return queryset


class MemberRoleFilter(admin.SimpleListFilter):
    title = "role"
    parameter_name = "role"

    def lookups(self, request, model_admin):
        return (("creator", "creator"), ("admin", "admin"), ("member", "member"))

    def queryset(self, request, queryset):
        if self.value() in ("creator", "admin", "member"):
            return queryset.filter(role=self.value())
        return queryset


class RestrictedFilter(admin.SimpleListFilter):
    title = "restricted"
    parameter_name = "restricted"

    def lookups(self, request, model_admin):
        return (("1", "has banned rights"),)

    def queryset(self, request, queryset):
        if self.value() == "1":
            return queryset.exclude(banned_rights=0)
        return queryset


@admin.register(Member)
class MemberAdmin(PeopleMixin, ChannelLinksMixin, ModerationMixin, RowKeyAdmin):
    people_fields = ("user_id", "inviter_user_id", "promoted_by", "kicked_by")
    who = person_column("user_id", "who")
    inviter = person_column("inviter_user_id", "invited by")
    promoter = person_column("promoted_by", "promoted by")
    kicker = person_column("kicked_by", "banned by", zero="-")
    list_display = (
        "channel_id",
        "user_id",
        "who",
        "role",
        "status",
        "admin_rights_shown",
        "banned_rights_shown",
        "banned_until_shown",
        "joined_shown",
        "read_inbox_max_id",
        "read_outbox_max_id",
        "available_min_id",
    )
    list_display_links = ("user_id",)
    list_filter = (PartitionKeyFilter, MemberStatusFilter, MemberRoleFilter, RestrictedFilter)
    ordering = ("channel_id", "user_id")
    keyset_field = "user_id"
    keyset_requires = "channel_id"
    actions = ("ban_members", "unban_members")
    fields = (
        "channel_id",
        "who",
        "role",
        "status",
        "rank",
        "admin_rights_shown",
        "promoter",
        "banned_rights_shown",
        "banned_until_shown",
        "kicker",
        "inviter",
        "joined_shown",
        "left_shown",
        "available_min_id",
        "available_min_pts",
        "read_inbox_max_id",
        "read_inbox_date_shown",
        "read_outbox_max_id",
        "pages",
    )
    readonly_fields = fields

    @admin.display(description="admin rights")
    def admin_rights_shown(self, obj: Member) -> str:
        return rights_names(obj.admin_rights, ADMIN_FLAGS) if obj.role != "creator" else "all (creator)"

    @admin.display(description="banned rights")
    def banned_rights_shown(self, obj: Member) -> str:
        return rights_names(obj.banned_rights, BANNED_FLAGS)

    @admin.display(description="banned until")
    def banned_until_shown(self, obj: Member) -> str:
        if not obj.banned_rights:
            return "-"
        return unix_time(obj.banned_until) if obj.banned_until else "forever"

    @admin.display(description="joined")
    def joined_shown(self, obj: Member) -> str:
        return unix_time(obj.joined_at)

    @admin.display(description="left")
    def left_shown(self, obj: Member) -> str:
        return unix_time(obj.left_at)

    @admin.display(description="read inbox date")
    def read_inbox_date_shown(self, obj: Member) -> str:
        return unix_time(obj.read_inbox_date)

    def _each(self, request, queryset, what: str, call) -> int:
        done = 0
        for m in queryset[: moderation_cap()]:
            if self.run_moderation(
                request, f"{what} user {m.user_id} in {m.channel_id}", call, m.channel_id, m.user_id
            ):
                done += 1
                self.audit(request, m.channel_id, f"{what} user {m.user_id}")
        return done

    @admin.action(description="Ban the selected members (removed, cannot rejoin)", permissions=[MODERATE])
    @confirmed(
        "Each member is removed from the channel and cannot rejoin until unbanned; their connected "
        "devices are told at once and the group sees who was removed.",
        describe=lambda admin_, m: f"{people.plain(m.user_id)} in channel {m.channel_id}",
    )
    def ban_members(self, request, queryset):
        done = self._each(request, queryset, "banned", moderation.ban_member)
        if done:
            self.message_user(request, f"Banned {done} member(s).", messages.SUCCESS)

    @admin.action(description="Unban the selected members (may rejoin)", permissions=[MODERATE])
    def unban_members(self, request, queryset):
        done = self._each(request, queryset, "unbanned", moderation.unban_member)
        if done:
            self.message_user(request, f"Unbanned {done} member(s).", messages.SUCCESS)
