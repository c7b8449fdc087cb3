"""Operator views of bots: each bot with its owner, and the actions an operator takes on
them (revoke the token, switch the bot off or on, delete it), through the domain
actions. Logging a bot out reaches its connected sessions on every listener."""

from django.contrib import admin, messages

from bots_app import actions
from bots_app.models import Bot
from edge_app import registry
from tl.errors import RpcError


def _forget(key_ids: list[int]) -> None:
    for key_id in key_ids:
        registry.forget_authorization(key_id)


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = (
        "user_id", "username", "name", "owner", "privacy", "join_groups", "inline", "deactivated", "created",
    )  # fmt: skip
    list_filter = ("deactivated", "privacy", "join_groups")
    search_fields = ("=user__id", "user__username", "user__first_name", "=owner__id", "owner__username")
    list_select_related = ("user", "owner")
    readonly_fields = (
        "user", "owner", "privacy", "join_groups", "inline_placeholder", "inline_feedback", "description",
        "menu_button", "localized", "info_version", "deactivated", "created",
    )  # fmt: skip
    exclude = ("token_hash", "revoked_hashes")
    actions = ("revoke_token", "deactivate", "reactivate", "delete_bots")
    list_per_page = 100

    @admin.display(description="username", ordering="user__username")
    def username(self, bot: Bot) -> str:
        return f"@{bot.user.username}" if bot.user.username else "(deleted)"

    @admin.display(description="name")
    def name(self, bot: Bot) -> str:
        return bot.user.first_name

    @admin.display(description="inline", boolean=True)
    def inline(self, bot: Bot) -> bool:
        return bool(bot.inline_placeholder)

    def has_add_permission(self, request):
        return False  # bots are made by their owners (service bot, createbot)

    def has_delete_permission(self, request, obj=None):
        return False  # deletion goes through the domain action below

    def _each(self, request, queryset, do, done: str) -> None:
        count = 0
        for bot in queryset:
            try:
                do(bot)
                count += 1
            except RpcError as exc:
                self.message_user(request, f"@{bot.user.username}: {exc.message}", messages.ERROR)
        if count:
            self.message_user(request, f"{count} bot(s) {done}.", messages.SUCCESS)

    @admin.action(
        description="Revoke the token (the bot is logged out; its owner gets a new one from the service bot)"
    )
    def revoke_token(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda b: _forget(actions.do_revoke_token(None, b.user_id).logged_out),
            "revoked",
        )

    @admin.action(description="Switch off (log out, refuse its token)")
    def deactivate(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda b: _forget(actions.do_set_bot_deactivated(b.user_id, True)),
            "switched off",
        )

    @admin.action(description="Switch back on")
    def reactivate(self, request, queryset):
        self._each(
            request, queryset, lambda b: actions.do_set_bot_deactivated(b.user_id, False), "switched on"
        )

    @admin.action(description="Delete the bot account")
    def delete_bots(self, request, queryset):
        self._each(request, queryset, lambda b: _forget(actions.do_delete_bot(None, b.user_id)), "deleted")
