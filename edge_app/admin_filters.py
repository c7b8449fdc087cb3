"""List filters shared by the admin pages of several apps."""

from __future__ import annotations

from django.contrib import admin


class RevokedFilter(admin.SimpleListFilter):
    """Links (chat invites, folder links) by state: live or revoked."""

    title = "state"
    parameter_name = "revoked"

    def lookups(self, request, model_admin):
        return (("0", "live"), ("1", "revoked"))

    def queryset(self, request, queryset):
        if self.value() in ("0", "1"):
            return queryset.filter(revoked=self.value() == "1")
        return queryset
