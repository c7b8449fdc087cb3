"""Console pages of sticker sets: every set with its owner, size, installs and use,
and the operator's actions on it (feature, stop featuring, remove). Removing goes
through the domain, so the set leaves every user's panel and their clients hear it."""

from __future__ import annotations

import datetime as dt

from django.contrib import admin, messages
from django.db.models import Count, IntegerField, OuterRef, Subquery, Sum

from accounts_app.models import User
from stickers_app import operator
from stickers_app.models import InstalledSet, SetSticker, StickerSet


def _subquery(model, aggregate, **filters):
    q = model.objects.filter(set_id=OuterRef("pk"), **filters).order_by().values("set_id")
    return Subquery(q.annotate(v=aggregate).values("v")[:1], output_field=IntegerField())


@admin.register(StickerSet)
class StickerSetAdmin(admin.ModelAdmin):
    list_display = (
        "title",
        "short_name",
        "kind",
        "owner",
        "stickers",
        "installs",
        "uses",
        "featured",
        "created_on",
    )
    list_filter = ("kind",)
    search_fields = ("title", "short_name_lower")
    ordering = ("-created",)
    list_per_page = 100
    actions = ("feature", "unfeature", "remove_sets")
    readonly_fields = [f.name for f in StickerSet._meta.fields]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                n_stickers=_subquery(SetSticker, Count("id")),
                n_uses=_subquery(SetSticker, Sum("uses")),
                n_installs=_subquery(InstalledSet, Count("id"), archived=False),
            )
        )

    def has_add_permission(self, request):
        return False  # sets are made by users (stickers.createStickerSet) or import_sticker_set

    def get_actions(self, request):
        found = super().get_actions(request)
        found.pop("delete_selected", None)  # a plain delete would skip the clients' update
        return found

    @admin.display(description="owner")
    def owner(self, obj) -> str:
        if not obj.owner_id:
            return "operator"
        u = User.objects.filter(id=obj.owner_id).only("first_name", "last_name", "phone").first()
        return f"{u.first_name} {u.last_name}".strip() + f" ({obj.owner_id})" if u else str(obj.owner_id)

    @admin.display(description="stickers", ordering="n_stickers")
    def stickers(self, obj) -> int:
        return obj.n_stickers or 0

    @admin.display(description="installed by", ordering="n_installs")
    def installs(self, obj) -> int:
        return obj.n_installs or 0

    @admin.display(description="messages sent", ordering="n_uses")
    def uses(self, obj) -> int:
        return obj.n_uses or 0

    @admin.display(description="featured", boolean=True, ordering="-featured_at")
    def featured(self, obj) -> bool:
        return obj.featured_at > 0

    @admin.display(description="created", ordering="created")
    def created_on(self, obj) -> str:
        return dt.datetime.fromtimestamp(obj.created, dt.UTC).strftime("%Y-%m-%d %H:%M")

    @admin.action(description="Feature (show in everyone's trending sets)", permissions=["change"])
    def feature(self, request, queryset):
        for row in queryset:
            operator.feature(row.id, True)
        self.message_user(request, f"{queryset.count()} set(s) featured.")

    @admin.action(description="Stop featuring", permissions=["change"])
    def unfeature(self, request, queryset):
        for row in queryset:
            operator.feature(row.id, False)
        self.message_user(request, f"{queryset.count()} set(s) no longer featured.")

    @admin.action(description="Remove (leaves every user's panel; sent messages keep their stickers)",
                  permissions=["delete"])  # fmt: skip
    def remove_sets(self, request, queryset):
        ids = list(queryset.values_list("id", flat=True))
        for set_id in ids:
            operator.remove(set_id)
        self.message_user(request, f"{len(ids)} set(s) removed.", messages.SUCCESS)

    def delete_model(self, request, obj):
        operator.remove(obj.id)

    def delete_queryset(self, request, queryset):
        for set_id in list(queryset.values_list("id", flat=True)):
            operator.remove(set_id)
