"""Shared pieces of the console's pages: time and rights text, the read-only page
mixin, the moderation and people mixins, channel links and filters."""

from __future__ import annotations

import datetime as dt

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts_app.models import Authorization
from channels_app.models import Channel
from edge_app.models import AuthKeyClient, AuthKeyRecord
from tl.errors import RpcError

from .. import moderation, people
from ..admin_log_text import rights_names as _rights_names
from ..rowkeys import MAX_SELECTED

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


class DeletedFilter(admin.SimpleListFilter):
    title = "deleted"
    parameter_name = "deleted"

    def lookups(self, request, model_admin):
        return (("0", "live"), ("1", "deleted"))

    def queryset(self, request, queryset):
        if self.value() in ("0", "1"):
            return queryset.filter(deleted=self.value() == "1")
        return queryset


def moderation_cap() -> int:
    """How many rows one moderation action may take."""
    return MAX_SELECTED
