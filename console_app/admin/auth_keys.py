"""The auth keys and their clients pages."""

from __future__ import annotations

from django.contrib import admin

from accounts_app.models import Authorization
from edge_app.admin_readonly import ReadOnlyAdmin
from edge_app.models import AuthKeyClient, AuthKeyRecord

from ..pagination import BoundedListMixin
from .common import PeopleMixin, person_column


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
class AuthKeyAdmin(ReadOnlyAdmin, PeopleMixin, BoundedListMixin, admin.ModelAdmin):
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


@admin.register(AuthKeyClient)
class AuthKeyClientAdmin(ReadOnlyAdmin, PeopleMixin, BoundedListMixin, admin.ModelAdmin):
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
