"""The messages page: kinds, deleted ones, media and service text, moderation."""

from __future__ import annotations

from django.contrib import admin, messages
from django.urls import path
from django.utils.html import format_html

from channels_app.models import Channel

from .. import moderation, people
from ..confirm import confirmed
from ..media import media_html, media_mark, media_summary
from ..models import Message
from ..pagination import PartitionKeyFilter, parse_id, user_id_filter
from ..rowkeys import RowKeyAdmin
from ..service_text import action_user_ids, service_text
from .common import (
    MODERATE,
    SEARCH_WINDOW,
    ChannelLinksMixin,
    DeletedFilter,
    ModerationMixin,
    PeopleMixin,
    moderation_cap,
    person_column,
    unix_time,
)


class MessageKindFilter(admin.SimpleListFilter):
    title = "kind"
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        return (("service", "service messages"), ("text", "ordinary messages"))

    def queryset(self, request, queryset):
        if self.value() == "service":
            return queryset.filter(action__isnull=False)
        if self.value() == "text":
            return queryset.filter(action__isnull=True)
        return queryset


class MessageDeletedFilter(DeletedFilter):
    pass


@admin.register(Message)
class MessageAdmin(PeopleMixin, ChannelLinksMixin, ModerationMixin, RowKeyAdmin):
    people_fields = ("sender_user_id",)
    sender = person_column("sender_user_id", "sender", zero="the channel / operator")
    list_display = (
        "channel_id",
        "id",
        "sender",
        "date_shown",
        "kind",
        "text",
        "edit_date_shown",
        "pts",
        "deleted",
    )
    list_display_links = ("id",)
    list_filter = (
        PartitionKeyFilter,
        MessageKindFilter,
        MessageDeletedFilter,
        user_id_filter("sender_user_id", "sender id"),
    )
    search_fields = ("message",)  # the real search is get_search_results
    search_help_text = "Text search within the selected channel (its newest 50,000 messages)."
    ordering = ("-channel_id", "-id")
    keyset_field = "-id"
    keyset_requires = "channel_id"
    actions = ("delete_selected_messages",)
    fields = (
        "channel_id",
        "id",
        "sender",
        "date_shown",
        "edit_date_shown",
        "post",
        "silent",
        "noforwards",
        "post_author",
        "message",
        "entities",
        "reply_to_msg_id",
        "reply_to_top_id",
        "fwd_from",
        "action_shown",
        "media_shown",
        "pts",
        "deleted",
        "pages",
    )
    readonly_fields = fields

    @admin.display(description="media")
    def media_shown(self, obj: Message) -> str:
        return media_html(obj.media)

    def people_extra(self, obj) -> set[int]:
        return action_user_ids(obj.action)

    @admin.display(description="service message")
    def action_shown(self, obj: Message) -> str:
        if not obj.action:
            return "-"
        return service_text(obj.action, obj.sender_user_id, people.display_names(obj))

    @admin.display(description="date")
    def date_shown(self, obj: Message) -> str:
        return unix_time(obj.date)

    @admin.display(description="edited")
    def edit_date_shown(self, obj: Message) -> str:
        return unix_time(obj.edit_date)

    @admin.display(description="kind")
    def kind(self, obj: Message) -> str:
        if obj.action:
            return "service message"
        return media_summary(obj.media) or "message"

    @admin.display(description="text")
    def text(self, obj: Message) -> str:
        if obj.action:
            return format_html(
                "<i>{}</i>", service_text(obj.action, obj.sender_user_id, people.display_names(obj))
            )
        text = obj.message if len(obj.message) <= 120 else obj.message[:119] + "…"
        mark = media_mark(obj.media)
        return f"{mark} {text}".strip() if mark else text

    def get_urls(self):
        from ..media import media_file

        extra = [
            path(
                "media/<str:kind>/<int:media_id>/<str:size>/",
                self.admin_site.admin_view(media_file),
                name="console_app_media",
            )
        ]
        return extra + super().get_urls()

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()[:256]
        if not term:
            return queryset, False
        try:
            channel_id = parse_id(request.GET.get("channel_id", ""))
        except ValueError:
            self.message_user(
                request, "Pick a channel (channel id filter) before searching text.", messages.WARNING
            )
            return queryset.none(), False
        top = Channel.objects.filter(id=channel_id).values_list("top_message_id", flat=True).first() or 0
        return (
            queryset.filter(channel_id=channel_id, id__gt=top - SEARCH_WINDOW, message__icontains=term),
            False,
        )

    @admin.action(description="Delete the selected messages for everyone", permissions=[MODERATE])
    @confirmed(
        "The messages are deleted for every member: they disappear from everyone's devices at once. "
        "This cannot be undone.",
        describe=lambda admin_, m: (
            f"message {m.id} in channel {m.channel_id} by "
            f"{people.plain(m.sender_user_id)}: {(m.message or media_mark(m.media) or '')[:80]}"
        ),
    )
    def delete_selected_messages(self, request, queryset):
        by_channel: dict[int, list[int]] = {}
        for m in queryset[: moderation_cap()]:
            if not m.deleted:
                by_channel.setdefault(m.channel_id, []).append(m.id)
        done = 0
        for channel_id, ids in by_channel.items():
            if self.run_moderation(
                request, f"delete messages in {channel_id}", moderation.delete_messages, channel_id, ids
            ):
                done += len(ids)
                self.audit(request, channel_id, f"deleted messages {', '.join(map(str, ids))}")
        if done:
            self.message_user(request, f"Deleted {done} message(s).", messages.SUCCESS)
