"""The channels page: search, type and deleted filters, moderation actions."""

from __future__ import annotations

from django.contrib import admin, messages
from django.urls import path, reverse
from django.utils.html import format_html

from channels_app.models import Channel, ChannelUsername
from channels_app.rights import BANNED_FLAGS
from edge_app.admin_readonly import ReadOnlyAdmin

from .. import moderation
from ..confirm import confirmed
from ..media import photo_html
from ..pagination import BoundedListMixin, parse_id, user_id_filter
from .common import (
    MODERATE,
    ChannelLinksMixin,
    DeletedFilter,
    ModerationMixin,
    PeopleMixin,
    moderation_cap,
    person_column,
    rights_names,
    unix_time,
)


class ChannelTypeFilter(admin.SimpleListFilter):
    title = "type"
    parameter_name = "type"

    def lookups(self, request, model_admin):
        return (("broadcast", "broadcast channel"), ("megagroup", "supergroup"), ("forum", "forum"))

    def queryset(self, request, queryset):
        value = self.value()
        if value in ("broadcast", "megagroup", "forum"):
            return queryset.filter(**{value: True})
        return queryset


@admin.register(Channel)
class ChannelAdmin(
    ReadOnlyAdmin, PeopleMixin, ChannelLinksMixin, ModerationMixin, BoundedListMixin, admin.ModelAdmin
):
    list_display = (
        "id",
        "title",
        "username",
        "kind",
        "owner",
        "participants_count",
        "admins_count",
        "kicked_count",
        "banned_count",
        "pts",
        "top_message_id",
        "deleted",
        "pages",
    )
    list_display_links = ("id", "title")
    list_filter = (ChannelTypeFilter, DeletedFilter, user_id_filter("creator_user_id", "owner id"))
    search_fields = ("title",)  # the real search is get_search_results
    search_help_text = "A channel id, a username (with or without @, or its beginning), or part of a title."
    people_fields = ("creator_user_id",)
    owner = person_column("creator_user_id", "owner")
    change_form_template = "admin/channels_app/channel/change_form.html"
    ordering = ("-id",)
    keyset_field = "-id"
    actions = ("delete_channels",)
    # The access hash lets anyone holding it reach a private channel: not shown.
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "id",
                    "title",
                    "about",
                    "username",
                    "owner",
                    "date_shown",
                    "photo_shown",
                    "deleted",
                    "pages",
                )
            },
        ),
        (
            "type and settings",
            {
                "fields": (
                    "broadcast",
                    "megagroup",
                    "forum",
                    "signatures",
                    "pre_history_hidden",
                    "participants_hidden",
                    "noforwards",
                    "slowmode_seconds",
                    "ttl_period",
                    "default_banned_shown",
                    "linked_chat_shown",
                )
            },
        ),
        ("counts", {"fields": ("participants_count", "admins_count", "kicked_count", "banned_count")}),
        (
            "state",
            {
                "fields": (
                    "pts",
                    "top_message_id",
                    "top_message_date_shown",
                    "pinned_message_id",
                    "admin_log_seq",
                )
            },
        ),
    )
    readonly_fields = (
        "id",
        "title",
        "about",
        "username",
        "owner",
        "date_shown",
        "photo_shown",
        "deleted",
        "broadcast",
        "megagroup",
        "forum",
        "signatures",
        "pre_history_hidden",
        "participants_hidden",
        "noforwards",
        "slowmode_seconds",
        "ttl_period",
        "default_banned_shown",
        "linked_chat_shown",
        "participants_count",
        "admins_count",
        "kicked_count",
        "banned_count",
        "pts",
        "top_message_id",
        "top_message_date_shown",
        "pinned_message_id",
        "admin_log_seq",
        "pages",
    )

    @admin.display(description="photo")
    def photo_shown(self, obj: Channel) -> str:
        return photo_html(obj.photo)

    @admin.display(description="type")
    def kind(self, obj: Channel) -> str:
        if obj.broadcast:
            return "channel"
        return "forum" if obj.forum else "supergroup"

    @admin.display(description="created")
    def date_shown(self, obj: Channel) -> str:
        return unix_time(obj.date)

    @admin.display(description="top message date")
    def top_message_date_shown(self, obj: Channel) -> str:
        return unix_time(obj.top_message_date)

    @admin.display(description="default banned rights")
    def default_banned_shown(self, obj: Channel) -> str:
        return rights_names(obj.default_banned_rights, BANNED_FLAGS)

    @admin.display(description="discussion link")
    def linked_chat_shown(self, obj: Channel) -> str:
        """A broadcast's comment group, or the broadcast a group holds comments for."""
        if not obj.linked_chat_id:
            return "-"
        other = Channel.objects.filter(id=obj.linked_chat_id).only("title").first()
        role = "comments go to" if obj.broadcast else "comments of"
        return format_html(
            '{} <a href="{}">{} ({})</a>',
            role,
            reverse("admin:channels_app_channel_change", args=[obj.linked_chat_id]),
            other.title if other else "(gone)",
            obj.linked_chat_id,
        )

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()
        if not term:
            return queryset, False
        try:
            return queryset.filter(id=parse_id(term)), False
        except ValueError:
            pass
        return queryset.filter(channel_search_q(term)), False

    def change_view(self, request, object_id, form_url="", extra_context=None):
        from ..channel_page import inline_context

        extra = {**(extra_context or {}), **inline_context(request, object_id)}
        return super().change_view(request, object_id, form_url, extra)

    def get_urls(self):
        from .. import views

        extra = [
            path(
                "<int:channel_id>/pts/",
                self.admin_site.admin_view(views.PtsStateView.as_view(model_admin=self)),
                name="channels_app_channel_pts",
            )
        ]
        return extra + super().get_urls()

    @admin.action(
        description="Delete the selected channels (clients see them disappear)", permissions=[MODERATE]
    )
    @confirmed(
        "Each channel is deleted for everyone: its members see it disappear from their chat lists, "
        "its messages and members are gone and its username becomes free. This cannot be undone."
    )
    def delete_channels(self, request, queryset):
        done = 0
        for channel in queryset[: moderation_cap()]:
            if channel.deleted:
                continue
            if self.run_moderation(
                request, f"delete channel {channel.id}", moderation.delete_channel, channel.id
            ):
                done += 1
                self.audit(request, channel.id, "deleted the channel")
        if done:
            self.message_user(request, f"Deleted {done} channel(s).", messages.SUCCESS)


MAX_USERNAME_MATCHES = 500


def channel_search_q(term: str):
    """A username with or without ``@`` (exact, or its beginning) or part of the title.
    A username prefix is a LIKE 'x%' on ``username_lower``, which its pattern-ops index
    serves; ``@...`` looks at usernames only."""
    from django.db.models import Q

    name = term.lstrip("@").lower()[:32]
    by_name = ChannelUsername.objects.filter(username_lower__startswith=name).values_list(
        "channel_id", flat=True
    )[:MAX_USERNAME_MATCHES]
    q = Q(id__in=list(by_name)) if name else Q(pk__in=[])
    if not term.startswith("@"):
        q |= Q(title__icontains=term[:128])
    return q
