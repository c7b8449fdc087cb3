"""Operator view of the link preview cache: each URL's page and its state (read-only)."""

from django.contrib import admin

from edge_app.admin_readonly import ReadOnlyAdmin
from webpages_app.models import WebPage


@admin.register(WebPage)
class WebPageAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("url", "state", "title", "fetched")
    list_filter = ("state",)
    search_fields = ("url",)
    show_full_result_count = False
    readonly_fields = [f.name for f in WebPage._meta.fields]

    @admin.display(description="title")
    def title(self, obj):
        return (obj.data or {}).get("title") or ""
