"""The invite links and join requests pages."""

from __future__ import annotations

from django.contrib import admin, messages

from edge_app.admin_filters import RevokedFilter

from .. import moderation
from ..models import Importer, Invite
from ..pagination import PartitionKeyFilter, user_id_filter
from ..rowkeys import RowKeyAdmin
from .common import MODERATE, ModerationMixin, PeopleMixin, moderation_cap, person_column, unix_time


@admin.register(Invite)
class InviteAdmin(PeopleMixin, ModerationMixin, RowKeyAdmin):
    people_fields = ("admin_user_id",)
    creator = person_column("admin_user_id", "created by")
    list_display = (
        "channel_id",
        "id",
        "hash",
        "creator",
        "title",
        "permanent",
        "revoked",
        "request_needed",
        "usage",
        "expires",
        "date_shown",
    )
    list_display_links = ("id", "hash")
    list_filter = (PartitionKeyFilter, RevokedFilter, user_id_filter("admin_user_id", "created by (user id)"))
    search_fields = ("=hash",)
    search_help_text = "The link's hash (the part after t.me/+)."
    ordering = ("-channel_id", "-id")
    keyset_field = "-id"
    keyset_requires = "channel_id"
    actions = ("revoke_invites",)
    fields = (
        "channel_id",
        "id",
        "hash",
        "creator",
        "title",
        "permanent",
        "revoked",
        "request_needed",
        "usage",
        "requested_count",
        "expires",
        "date_shown",
    )
    readonly_fields = fields

    @admin.display(description="used")
    def usage(self, obj: Invite) -> str:
        return f"{obj.usage_count}/{obj.usage_limit}" if obj.usage_limit else str(obj.usage_count)

    @admin.display(description="expires")
    def expires(self, obj: Invite) -> str:
        return unix_time(obj.expire_date) if obj.expire_date else "never"

    @admin.display(description="created")
    def date_shown(self, obj: Invite) -> str:
        return unix_time(obj.date)

    @admin.action(description="Revoke the selected invite links", permissions=[MODERATE])
    def revoke_invites(self, request, queryset):
        done = 0
        for inv in queryset[: moderation_cap()]:
            if inv.revoked:
                continue
            what = f"revoke invite {inv.id} of {inv.channel_id}"
            if self.run_moderation(request, what, moderation.revoke_invite, inv.channel_id, inv.hash):
                done += 1
                self.audit(request, inv.channel_id, f"revoked invite link {inv.id}")
        if done:
            self.message_user(request, f"Revoked {done} invite link(s).", messages.SUCCESS)


class RequestedFilter(admin.SimpleListFilter):
    title = "kind"
    parameter_name = "requested"

    def lookups(self, request, model_admin):
        return (("1", "pending join requests"), ("0", "joined through a link"))

    def queryset(self, request, queryset):
        if self.value() in ("0", "1"):
            return queryset.filter(requested=self.value() == "1")
        return queryset


@admin.register(Importer)
class ImporterAdmin(PeopleMixin, ModerationMixin, RowKeyAdmin):
    people_fields = ("user_id", "approved_by")
    who = person_column("user_id", "who")
    approver = person_column("approved_by", "approved by")
    list_display = (
        "channel_id",
        "user_id",
        "who",
        "requested",
        "invite_id",
        "date_shown",
        "about",
        "approver",
    )
    list_display_links = ("user_id",)
    list_filter = (PartitionKeyFilter, RequestedFilter)
    ordering = ("channel_id", "user_id")
    keyset_field = "user_id"
    keyset_requires = "channel_id"
    actions = ("approve_requests", "dismiss_requests")
    fields = ("channel_id", "who", "requested", "invite_id", "date_shown", "about", "approver")
    readonly_fields = fields

    @admin.display(description="date")
    def date_shown(self, obj: Importer) -> str:
        return unix_time(obj.date)

    def _each_request(self, request, queryset, what: str, call) -> int:
        done = 0
        for r in queryset.filter(requested=True)[: moderation_cap()]:
            if self.run_moderation(
                request, f"{what} {r.user_id} in {r.channel_id}", call, r.channel_id, r.user_id
            ):
                done += 1
                self.audit(request, r.channel_id, f"{what} the join request of user {r.user_id}")
        return done

    @admin.action(description="Approve the selected join requests", permissions=[MODERATE])
    def approve_requests(self, request, queryset):
        done = self._each_request(request, queryset, "approved", moderation.approve_join_request)
        if done:
            self.message_user(request, f"Approved {done} request(s).", messages.SUCCESS)

    @admin.action(description="Dismiss the selected join requests", permissions=[MODERATE])
    def dismiss_requests(self, request, queryset):
        done = self._each_request(request, queryset, "dismissed", moderation.dismiss_join_request)
        if done:
            self.message_user(request, f"Dismissed {done} request(s).", messages.SUCCESS)
