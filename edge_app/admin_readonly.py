"""The one read-only base of the admin pages that show rows and never add, change or
delete them (what changes goes through domain actions, each page's own buttons)."""

from __future__ import annotations


class ReadOnlyAdmin:
    """Mix in before ``admin.ModelAdmin`` (or an inline): no add, change or delete."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
