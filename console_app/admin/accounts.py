"""The account pages extended for operators: authorizations, users with their
devices, and the read-only contacts, login codes and account log."""

from __future__ import annotations

from django.contrib import admin, messages

from accounts_app.models import Authorization, Contact, LoginCode, User, UserUpdateEvent
from accounts_app.platforms import platform_of
from edge_app.admin_readonly import ReadOnlyAdmin
from tl.errors import RpcError

from .. import moderation
from ..confirm import confirmed
from ..media import photo_html
from ..pagination import BoundedListMixin
from .auth_keys import _client_of
from .common import (
    PeopleMixin,
    ReadOnlyPageMixin,
    _last_seen,
    may_change_accounts,
    moderation_cap,
    person_column,
)


def _extend_authorization_admin():
    """accounts_app.admin registers Authorization; the console adds the edge's view of
    each session (layer, last seen) and the terminate action on top of it."""
    base = (
        type(admin.site._registry[Authorization])
        if admin.site.is_registered(Authorization)
        else admin.ModelAdmin
    )

    class ConsoleAuthorizationAdmin(ReadOnlyAdmin, ReadOnlyPageMixin, BoundedListMixin, base):
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


class SessionInline(ReadOnlyAdmin, admin.TabularInline):
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


def _extend_user_admin():
    """accounts_app.admin registers User; the console makes its pages read-only (an edit
    in place would skip the account log and the pushes) and adds the account actions,
    which go through the domain."""
    if not admin.site.is_registered(User):
        return
    base = type(admin.site._registry[User])

    class ConsoleUserAdmin(ReadOnlyAdmin, ReadOnlyPageMixin, base):
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

    class ReadOnly(ReadOnlyAdmin, ReadOnlyPageMixin, PeopleMixin, base):
        pass

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
