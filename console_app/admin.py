"""The moderator and operator console: admin pages for channels, members, messages, the
update log, auth keys and authorizations, plus the moderation actions.

Everything here is read-only: editing a row in place would skip the domain (no pts, no
push, no admin log). Changes happen through the actions, which call
``console_app.moderation`` (the domain actions, with the operator as actor).
"""

from __future__ import annotations

import datetime as dt

from django.contrib import admin, messages
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from accounts_app.models import Authorization, Contact, LoginCode, User, UserUpdateEvent
from accounts_app.platforms import platform_of
from channels_app.models import Channel, ChannelUsername
from channels_app.rights import ADMIN_FLAGS, BANNED_FLAGS
from edge_app.models import AuthKeyClient, AuthKeyRecord
from tl.errors import RpcError

from . import moderation, people
from .admin_log_text import admin_log_text
from .admin_log_text import rights_names as _rights_names
from .confirm import confirmed
from .media import media_html, media_mark, media_summary, photo_html
from .models import AdminLogEvent, Importer, Invite, Member, Message, UpdateEvent
from .pagination import BoundedListMixin, PartitionKeyFilter, parse_id, user_id_filter
from .rowkeys import RowKeyAdmin
from .service_text import action_user_ids, service_text

MODERATE = "moderate_channels"
# Messages a text search looks through, newest first, within the one channel selected.
SEARCH_WINDOW = 50_000


def unix_time(value: int) -> str:
    if not value:
        return "-"
    return dt.datetime.fromtimestamp(value, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def rights_names(mask: int, table: dict[str, int]) -> str:
    return _rights_names(mask, table)


class ReadOnlyPageMixin:
    """A read-only page shows values, not the form's input help ("digits only, no
    leading +" under a phone number nobody can edit here)."""

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["help_texts"] = {f.name: "" for f in self.model._meta.get_fields() if hasattr(f, "help_text")}
        return super().get_form(request, obj, change, **kwargs)


def may_change_accounts(staff, also: str | None = None) -> bool:
    """Every action that changes a Telegram account (deactivate, reset the two-step
    password, revoke a username, log devices out) needs ``manage_accounts``."""
    if not staff.has_perm("console_app.manage_accounts"):
        return False
    return also is None or staff.has_perm(f"console_app.{also}")


def _last_seen():
    """A user's last activity: the newest of the status their app set, their sessions'
    last requests (what the edge recorded per key, a temporary key's under the
    permanent key it is bound to) and their last logins."""
    from django.db.models import Max, OuterRef, Subquery
    from django.db.models.functions import Coalesce, Greatest

    def user_ref(depth: int):
        ref = "pk"
        for _ in range(depth):
            ref = OuterRef(ref)
        return ref

    perm = AuthKeyClient.objects.filter(
        auth_key_id__in=Authorization.objects.filter(user_id=user_ref(2)).values("perm_auth_key_id")
    )
    temp = AuthKeyClient.objects.filter(
        auth_key_id__in=AuthKeyRecord.objects.filter(
            perm_auth_key_id__in=Authorization.objects.filter(user_id=user_ref(3)).values("perm_auth_key_id")
        ).values("auth_key_id")
    )
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    return Greatest(
        Coalesce("last_seen", epoch),
        Coalesce(Max("authorizations__active"), epoch),
        Coalesce(Subquery(perm.order_by("-last_seen").values("last_seen")[:1]), epoch),
        Coalesce(Subquery(temp.order_by("-last_seen").values("last_seen")[:1]), epoch),
    )


class ModerationMixin:
    """``has_moderate_channels_permission`` for ``@admin.action(permissions=[MODERATE])``."""

    def has_moderate_channels_permission(self, request) -> bool:
        return request.user.has_perm(f"console_app.{MODERATE}")

    def run_moderation(self, request, what: str, call, *args) -> bool:
        """Run one domain call; report errors as the client would see them."""
        try:
            call(*args)
        except moderation.NotAvailable as e:
            self.message_user(
                request, f"{what}: not available yet ({e.dotted} is missing).", messages.WARNING
            )
            return False
        except RpcError as e:
            self.message_user(request, f"{what}: refused by the domain: {e.message}", messages.ERROR)
            return False
        return True

    def audit(self, request, channel_id: int, text: str) -> None:
        # The channel admin log records "operator" (actor 0); Django's own log records
        # which staff account it was.
        channel = Channel.objects.filter(id=channel_id).first()
        if channel is not None:
            # Names, not bare ids, in the history ("banned Bob Smith @bob (2)").
            self.log_change(request, channel, f"{people.named_text(text)} (by {request.user.get_username()})")


class PeopleMixin:
    """Names, @usernames and (for staff who may open user pages) links wherever the
    page shows a user id: ``people_fields`` are resolved in one query per page."""

    people_fields: tuple[str, ...] = ()

    def people_extra(self, obj) -> set[int]:
        """Further user ids a row names (a service message's added users)."""
        return set()

    def get_changelist_instance(self, request):
        cl = super().get_changelist_instance(request)
        people.annotate(cl.result_list, self.people_fields, request.user, self.people_extra)
        return cl

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None:
            people.annotate([obj], self.people_fields, request.user, self.people_extra)
        return obj


def person_column(field: str, description: str, *, zero: str = "-"):
    @admin.display(description=description)
    def column(self, obj) -> str:
        return people.shown(obj, field, zero=zero)

    return column


# (label, admin url name, the permission a staff member needs to open it)
CHANNEL_PAGES = (
    ("members", "admin:console_app_member_changelist", "console_app.view_member"),
    ("messages", "admin:console_app_message_changelist", "console_app.view_message"),
    ("invite links", "admin:console_app_invite_changelist", "console_app.view_invite"),
    ("join requests", "admin:console_app_importer_changelist", "console_app.view_importer"),
    ("admin log", "admin:console_app_adminlogevent_changelist", "console_app.view_adminlogevent"),
    ("update log", "admin:console_app_updateevent_changelist", "console_app.view_updateevent"),
)


def channel_links(channel_id: int, user) -> str:
    """Links to the channel's other pages, only those ``user`` may open."""
    links = [(reverse(name), channel_id, label) for label, name, perm in CHANNEL_PAGES if user.has_perm(perm)]
    out = format_html_join(" | ", '<a href="{}?channel_id={}">{}</a>', links)
    if user.has_perm("console_app.view_pts_state"):
        pts = reverse("admin:channels_app_channel_pts", args=[channel_id])
        out = format_html('{} | <a href="{}">pts state</a>', out, pts)
    return out


class ChannelLinksMixin:
    """A "pages" column / field whose links depend on who is looking: list_display and
    readonly fields get a callable bound to the request's user (one per request, so the
    field set and the read-only set name the same object)."""

    LINKS = "pages"

    @admin.display(description="pages")
    def pages(self, obj) -> str:
        return ""  # what the system checks see; each request gets _links instead

    def _links(self, request):
        fn = getattr(request, "_console_links", None)
        if fn is None:
            user = request.user

            def pages(obj):
                return channel_links(getattr(obj, "channel_id", None) or obj.pk, user)

            pages.short_description = "pages"
            fn = request._console_links = pages
        return fn

    def _swap(self, request, names):
        return [self._links(request) if n == self.LINKS else n for n in names]

    def get_list_display(self, request):
        return self._swap(request, super().get_list_display(request))

    def get_readonly_fields(self, request, obj=None):
        return self._swap(request, super().get_readonly_fields(request, obj))

    def get_fields(self, request, obj=None):
        return self._swap(request, super().get_fields(request, obj))

    def get_fieldsets(self, request, obj=None):
        return [
            (name, {**opts, "fields": self._swap(request, opts["fields"])})
            for name, opts in super().get_fieldsets(request, obj)
        ]


# --- channels --------------------------------------------------------------------------


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


class DeletedFilter(admin.SimpleListFilter):
    title = "deleted"
    parameter_name = "deleted"

    def lookups(self, request, model_admin):
        return (("0", "live"), ("1", "deleted"))

    def queryset(self, request, queryset):
        if self.value() in ("0", "1"):
            return queryset.filter(deleted=self.value() == "1")
        return queryset


@admin.register(Channel)
class ChannelAdmin(PeopleMixin, ChannelLinksMixin, ModerationMixin, BoundedListMixin, admin.ModelAdmin):
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
        from .channel_page import inline_context

        extra = {**(extra_context or {}), **inline_context(request, object_id)}
        return super().change_view(request, object_id, form_url, extra)

    def get_urls(self):
        from . import views

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

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


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


def moderation_cap() -> int:
    from .rowkeys import MAX_SELECTED

    return MAX_SELECTED


# --- members ---------------------------------------------------------------------------


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


# --- messages --------------------------------------------------------------------------


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
        from .media import media_file

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


# --- the channel update log ------------------------------------------------------------


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


# --- invites, join requests, admin log ---------------------------------------------------


class RevokedFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "revoked"

    def lookups(self, request, model_admin):
        return (("0", "live"), ("1", "revoked"))

    def queryset(self, request, queryset):
        if self.value() in ("0", "1"):
            return queryset.filter(revoked=self.value() == "1")
        return queryset


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


# --- edge: auth keys and clients -------------------------------------------------------


def key_id_hex(key_id: int | None) -> str:
    return "-" if key_id is None else f"{key_id & 0xFFFFFFFFFFFFFFFF:016x}"


def _user_of_key(key_field: str):
    """The user logged in on a key: its own authorization, or (a temporary key) the
    authorization of the permanent key it is bound to."""
    from django.db.models import OuterRef, Q, Subquery

    bound_to = AuthKeyRecord.objects.filter(auth_key_id=OuterRef(OuterRef(key_field))).values(
        "perm_auth_key_id"
    )
    auths = Authorization.objects.filter(
        Q(perm_auth_key_id=OuterRef(key_field)) | Q(perm_auth_key_id=Subquery(bound_to[:1]))
    )
    return Subquery(auths.values("user_id")[:1])


@admin.register(AuthKeyRecord)
class AuthKeyAdmin(PeopleMixin, BoundedListMixin, admin.ModelAdmin):
    # ``key`` (the key bytes) is in no list, form or field set: it is the credential.
    list_display = (
        "key_id_shown", "user_shown", "kind", "created", "expires_at", "perm_key_shown", "bound_at", "dc_id",
    )  # fmt: skip
    list_filter = ("dc_id",)
    search_fields = ("=auth_key_id", "=perm_auth_key_id")
    fields = (
        "key_id_shown",
        "user_shown",
        "kind",
        "created",
        "expires_at",
        "perm_key_shown",
        "bound_at",
        "dc_id",
    )
    readonly_fields = fields
    exclude = ("key",)
    ordering = ("-created",)
    people_fields = ("key_user_id",)
    user_shown = person_column("key_user_id", "user", zero="(not logged in)")

    def get_queryset(self, request):
        return super().get_queryset(request).defer("key").annotate(key_user_id=_user_of_key("auth_key_id"))

    @admin.display(description="auth key id")
    def key_id_shown(self, obj) -> str:
        return key_id_hex(obj.auth_key_id)

    @admin.display(description="bound to permanent key")
    def perm_key_shown(self, obj) -> str:
        return key_id_hex(obj.perm_auth_key_id) if obj.perm_auth_key_id is not None else "-"

    @admin.display(description="kind")
    def kind(self, obj) -> str:
        return "temporary" if obj.expires_at else "permanent"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(AuthKeyClient)
class AuthKeyClientAdmin(PeopleMixin, BoundedListMixin, admin.ModelAdmin):
    people_fields = ("key_user_id",)
    user_shown = person_column("key_user_id", "user", zero="(not logged in)")
    list_display = (
        "key_id_shown",
        "user_shown",
        "device_model",
        "app_version",
        "api_id",
        "layer",
        "lang_code",
        "ip",
        "last_seen",
    )
    list_filter = ("layer",)
    search_fields = ("=auth_key_id", "device_model", "app_version", "ip")
    ordering = ("-last_seen",)
    readonly_fields = (
        "key_id_shown",
        "user_shown",
        "api_id",
        "device_model",
        "system_version",
        "app_version",
        "system_lang_code",
        "lang_pack",
        "lang_code",
        "layer",
        "ip",
        "first_seen",
        "last_seen",
    )
    fields = readonly_fields

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(key_user_id=_user_of_key("auth_key_id"))

    @admin.display(description="auth key id")
    def key_id_shown(self, obj) -> str:
        return key_id_hex(obj.auth_key_id)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# --- accounts: authorizations with what the edge saw of them ---------------------------


def _client_of(field: str):
    """The newest initConnection seen on the permanent key or a temporary key bound to it."""
    from django.db.models import OuterRef, Q, Subquery

    bound = AuthKeyRecord.objects.filter(perm_auth_key_id=OuterRef(OuterRef("perm_auth_key_id"))).values(
        "auth_key_id"
    )
    clients = AuthKeyClient.objects.filter(
        Q(auth_key_id=OuterRef("perm_auth_key_id")) | Q(auth_key_id__in=bound)
    ).order_by("-last_seen")
    return Subquery(clients.values(field)[:1])


def _extend_authorization_admin():
    """accounts_app.admin registers Authorization; the console adds the edge's view of
    each session (layer, last seen) and the terminate action on top of it."""
    base = (
        type(admin.site._registry[Authorization])
        if admin.site.is_registered(Authorization)
        else admin.ModelAdmin
    )

    class ConsoleAuthorizationAdmin(ReadOnlyPageMixin, BoundedListMixin, base):
        list_display = (
            "id",
            "user",
            "device_model",
            "platform_shown",
            "app_name",
            "app_version",
            "layer",
            "last_seen",
            "ip",
            "created",
        )
        search_fields = ("=user__id", "user__phone", "device_model")
        list_select_related = ("user",)
        ordering = ("-id",)
        actions = ("terminate",)
        fields = (
            "user",
            "device_model",
            "platform_shown",
            "system_version",
            "app_name",
            "app_version",
            "api_id",
            "layer",
            "last_seen",
            "ip",
            "created",
            "active",
        )
        readonly_fields = fields

        def get_queryset(self, request):
            return (
                super()
                .get_queryset(request)
                .annotate(edge_layer=_client_of("layer"), edge_last_seen=_client_of("last_seen"))
            )

        @admin.display(description="layer")
        def layer(self, obj) -> str:
            return str(obj.edge_layer) if obj.edge_layer else "-"

        @admin.display(description="platform")
        def platform_shown(self, obj) -> str:
            return platform_of(obj.system_version, obj.device_model, obj.app_name)

        @admin.display(description="last seen")
        def last_seen(self, obj):
            return obj.edge_last_seen or obj.active

        def has_add_permission(self, request):
            return False

        def has_change_permission(self, request, obj=None):
            return False

        def has_delete_permission(self, request, obj=None):
            return False

        def has_terminate_authorizations_permission(self, request) -> bool:
            return may_change_accounts(request.user, "terminate_authorizations")

        @admin.action(
            description="Terminate the selected sessions (log the devices out)",
            permissions=["terminate_authorizations"],
        )
        @confirmed(
            "Each device is logged out at once: its app shows the login screen and must sign in again.",
            describe=lambda admin_, a: (
                f"{a.device_model or 'a device'} ({a.app_name} {a.app_version}) of {a.user}"
            ),
        )
        def terminate(self, request, queryset):
            done = 0
            for auth in queryset[: moderation_cap()]:
                try:
                    moderation.terminate_authorization(auth)
                except moderation.NotAvailable as e:
                    self.message_user(request, f"terminate: not available yet ({e.dotted})", messages.WARNING)
                    return
                done += 1
                self.log_change(request, auth, f"terminated the session (by {request.user.get_username()})")
            self.message_user(request, f"Terminated {done} session(s).", messages.SUCCESS)

    if admin.site.is_registered(Authorization):
        admin.site.unregister(Authorization)
    admin.site.register(Authorization, ConsoleAuthorizationAdmin)


_extend_authorization_admin()


class SessionInline(admin.TabularInline):
    """A user's logged-in devices on the user's page (terminate them from the
    authorizations list, which goes through the domain)."""

    model = Authorization
    fields = (
        "device_model",
        "platform_shown",
        "app_name",
        "app_version",
        "api_id",
        "ip",
        "created",
        "active",
    )
    readonly_fields = fields

    @admin.display(description="platform")
    def platform_shown(self, obj) -> str:
        return platform_of(obj.system_version, obj.device_model, obj.app_name)

    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = True
    verbose_name = "session"

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def _extend_user_admin():
    """accounts_app.admin registers User; the console makes its pages read-only (an edit
    in place would skip the account log and the pushes) and adds the account actions,
    which go through the domain."""
    if not admin.site.is_registered(User):
        return
    base = type(admin.site._registry[User])

    class ConsoleUserAdmin(ReadOnlyPageMixin, base):
        # The console's session list replaces the accounts app's (one SESSIONS section).
        inlines = (SessionInline,)
        actions = (
            "reset_two_step_password",
            "deactivate_accounts",
            "terminate_all_sessions",
            "revoke_usernames",
        )

        def get_queryset(self, request):
            return super().get_queryset(request).annotate(seen=_last_seen())

        def get_list_display(self, request):
            shown = [f for f in super().get_list_display(request) if f != "last_seen"]
            return [*shown, "last_seen_shown"]

        def get_readonly_fields(self, request, obj=None):
            fields = [f for f in super().get_readonly_fields(request, obj) if f != "last_seen"]
            return [*fields, "last_seen_shown", "photo_shown"]

        def get_fields(self, request, obj=None):
            # The profile photo as a picture, not its stored snapshot (access hash,
            # file reference).
            fields = [f for f in super().get_fields(request, obj) if f not in ("photo", "photo_shown")]
            return [*fields, "photo_shown"]

        @admin.display(description="profile photo")
        def photo_shown(self, obj) -> str:
            return photo_html(obj.photo)

        @admin.display(description="last seen", ordering="seen")
        def last_seen_shown(self, obj):
            # The newest of: the status the user's app last set, the session's last
            # request the edge recorded, the last login; "online" while online.
            from django.utils import timezone

            if obj.online_until and obj.online_until > timezone.now():
                return "online"
            seen = getattr(obj, "seen", None) or obj.last_seen
            return seen if seen and seen.year > 1970 else "-"

        def has_add_permission(self, request):
            return False

        def has_change_permission(self, request, obj=None):
            return False

        def has_delete_permission(self, request, obj=None):
            return False

        def has_manage_accounts_permission(self, request) -> bool:
            return may_change_accounts(request.user)

        def has_terminate_authorizations_permission(self, request) -> bool:
            return may_change_accounts(request.user, "terminate_authorizations")

        def _each_user(self, request, queryset, what: str, call) -> int:
            done = 0
            for user in queryset[: moderation_cap()]:
                try:
                    result = call(user.id)
                except RpcError as e:
                    self.message_user(request, f"{what} {user.id}: {e.message}", messages.ERROR)
                    continue
                except moderation.NotAvailable as e:
                    self.message_user(request, f"{what}: not available yet ({e.dotted})", messages.WARNING)
                    return done
                if result is False:
                    continue
                done += 1
                self.log_change(request, user, f"{what} (by {request.user.get_username()})")
            return done

        @admin.action(
            description="Reset the two-step password (the user forgot it)", permissions=["manage_accounts"]
        )
        @confirmed(
            "The two-step verification password of each account is removed: the user signs in with "
            "the login code alone and may set a new password. Their sessions stay logged in.",
            describe=lambda admin_, u: str(u),
        )
        def reset_two_step_password(self, request, queryset):
            return base.reset_two_step_password(self, request, queryset)

        @admin.action(
            description="Deactivate the selected accounts (log out everywhere, free the username, no sign-in)",
            permissions=["manage_accounts"],
        )
        @confirmed(
            "Each account is closed: every device is logged out, the username is freed, nobody can "
            "sign in to it again and its contacts see a deleted account. This cannot be undone here.",
            describe=lambda admin_, u: str(u),
        )
        def deactivate_accounts(self, request, queryset):
            done = self._each_user(request, queryset, "deactivated the account", moderation.deactivate_user)
            self.message_user(request, f"Deactivated {done} account(s).", messages.SUCCESS)

        @admin.action(
            description="Terminate all sessions of the selected accounts (log every device out)",
            permissions=["terminate_authorizations"],
        )
        @confirmed(
            "Every device of each account is logged out at once and must sign in again.",
            describe=lambda admin_, u: str(u),
        )
        def terminate_all_sessions(self, request, queryset):
            counts = []
            for user in queryset[: moderation_cap()]:
                counts.append(moderation.terminate_sessions(user.id))
                self.log_change(request, user, f"terminated all sessions (by {request.user.get_username()})")
            self.message_user(
                request, f"Terminated {sum(counts)} session(s) of {len(counts)} account(s).", messages.SUCCESS
            )

        @admin.action(
            description="Revoke the usernames of the selected accounts", permissions=["manage_accounts"]
        )
        @confirmed(
            "Each account loses its @username (anyone may take it); their devices and contacts see "
            "the change at once.",
            describe=lambda admin_, u: f"{u} @{u.username}",
        )
        def revoke_usernames(self, request, queryset):
            done = self._each_user(
                request, queryset.exclude(username=None), "revoked the username", moderation.revoke_username
            )
            self.message_user(request, f"Revoked {done} username(s).", messages.SUCCESS)

    admin.site.unregister(User)
    admin.site.register(User, ConsoleUserAdmin)


_extend_user_admin()


def _read_only(model, **extra) -> None:
    """Contacts and the account log change only through the clients' own requests."""
    if not admin.site.is_registered(model):
        return
    base = type(admin.site._registry[model])

    class ReadOnly(ReadOnlyPageMixin, PeopleMixin, base):
        def has_add_permission(self, request, obj=None):
            return False

        def has_change_permission(self, request, obj=None):
            return False

        def has_delete_permission(self, request, obj=None):
            return False

    for name, value in extra.items():
        setattr(ReadOnly, name, value)
    ReadOnly.__name__ = f"Console{base.__name__}"
    admin.site.unregister(model)
    admin.site.register(model, ReadOnly)


for _model in (Contact, LoginCode):
    _read_only(_model)
# The account log names whose log it is, not a bare user id.
_read_only(
    UserUpdateEvent,
    people_fields=("user_id",),
    who=person_column("user_id", "user"),
    list_display=("who", "pts", "pts_count", "type", "date"),
)

# The console's own name everywhere Django would say "Django administration".
admin.site.site_header = "telesrv console"
admin.site.site_title = "telesrv console"
admin.site.index_title = "Start"
from . import report_queue  # noqa: E402,F401  (the user reports queue)
