"""Console pages of folder links: every t.me/addlist link with its owner, folder and
chats, and a moderator's revoke, which goes through the domain action (the link and the
chat invite links it made stop working, the owner's folder is told)."""

from __future__ import annotations

import asyncio
import datetime as dt

from django.contrib import admin, messages

from accounts_app.models import User
from edge_app.admin_filters import RevokedFilter
from edge_app.admin_readonly import ReadOnlyAdmin
from tl.errors import RpcError

from . import actions
from .models import ChatlistInvite

MODERATE = "moderate_channels"  # the console's moderators (manage.py create_staff_groups)
REVOKE_CAP = 100  # links one action revokes


def _run(coro_fn, *args):
    async def call():
        from channels_app import counters
        from message_core import db

        try:
            return await coro_fn(*args)
        finally:
            await db.close_pools()
            await counters.close_clients()

    return asyncio.run(call())


@admin.register(ChatlistInvite)
class ChatlistInviteAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("link", "owner", "filter_id", "title", "chats", "private_chats", "created", "revoked")
    list_filter = (RevokedFilter,)
    search_fields = ("=slug", "=owner_id", "title")
    search_help_text = "The link's slug (after t.me/addlist/), the owner's user id, or the link's title."
    ordering = ("-date", "-id")
    list_per_page = 100
    show_full_result_count = False
    actions = ("revoke_links",)
    readonly_fields = [f.name for f in ChatlistInvite._meta.fields]

    def has_moderate_channels_permission(self, request) -> bool:
        return request.user.has_perm(f"console_app.{MODERATE}")

    @admin.display(description="link", ordering="slug")
    def link(self, obj: ChatlistInvite) -> str:
        return f"t.me/addlist/{obj.slug}"

    @admin.display(description="owner", ordering="owner_id")
    def owner(self, obj: ChatlistInvite) -> str:
        u = User.objects.filter(id=obj.owner_id).only("first_name", "last_name", "username").first()
        if u is None:
            return str(obj.owner_id)
        name = f"{u.first_name} {u.last_name}".strip()
        return f"{name} @{u.username} ({obj.owner_id})" if u.username else f"{name} ({obj.owner_id})"

    @admin.display(description="chats")
    def chats(self, obj: ChatlistInvite) -> int:
        return len(obj.peers or [])

    @admin.display(description="private chats")
    def private_chats(self, obj: ChatlistInvite) -> int:
        return len(obj.chat_invites or {})

    @admin.display(description="created", ordering="date")
    def created(self, obj: ChatlistInvite) -> str:
        return dt.datetime.fromtimestamp(obj.date, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")

    @admin.action(description="Revoke the selected folder links", permissions=[MODERATE])
    def revoke_links(self, request, queryset):
        done = 0
        for row in queryset.filter(revoked=False)[:REVOKE_CAP]:
            try:
                if _run(actions.do_revoke_link, row.slug):
                    done += 1
                    self.log_change(
                        request, row, f"revoked t.me/addlist/{row.slug} (by {request.user.get_username()})"
                    )
            except RpcError as exc:
                self.message_user(request, f"t.me/addlist/{row.slug}: {exc.message}", messages.ERROR)
        if done:
            self.message_user(request, f"Revoked {done} folder link(s).", messages.SUCCESS)
