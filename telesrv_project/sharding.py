"""The role every table of the schema takes when the store is sharded with Citus.

One PostgreSQL primary holds everything today; when it is no longer enough, Citus
distributes tables by a column. This module is the plan, as data: which tables are
distributed by ``channel_id`` (one colocation group, headed by ``channels``), which by
``user_id`` (a second group, headed by ``users``), which are reference tables (a copy on
every node: small, read everywhere, rarely written) and which stay local to the
coordinator (Django's own tables, the operator's queues, global lookups by a key of
their own). ``tests/project/test_citus_readiness.py`` checks the migrated schema
against it, and ``docs/scaling.md`` lists it (``python -m telesrv_project.sharding``
prints that section's tables and calls).

A distribution column may be named differently in a table (``channels.id``,
``blocks.owner_id``); what makes tables co-located is the group.
"""

from __future__ import annotations

from dataclasses import dataclass

DISTRIBUTED = "distributed"
REFERENCE = "reference"
LOCAL = "local"

CHANNEL = "channel_id"
USER = "user_id"

# The table every other member of a colocation group is co-located with.
GROUP_HEADS = {CHANNEL: "channels", USER: "users"}


@dataclass(frozen=True)
class Role:
    kind: str
    group: str | None = None  # CHANNEL or USER for distributed tables
    column: str | None = None  # the distribution column in this table
    why: str = ""

    def label(self) -> str:
        if self.kind == DISTRIBUTED:
            suffix = "" if self.column == self.group else f" (column `{self.column}`)"
            return f"distributed by `{self.group}`{suffix}"
        return self.kind


def by_channel(column: str = "channel_id", why: str = "") -> Role:
    return Role(DISTRIBUTED, CHANNEL, column, why)


def by_user(column: str = "user_id", why: str = "") -> Role:
    return Role(DISTRIBUTED, USER, column, why)


def reference(why: str) -> Role:
    return Role(REFERENCE, why=why)


def local(why: str) -> Role:
    return Role(LOCAL, why=why)


_DJANGO = "Django's own bookkeeping, used by the admin and migrations only"
_POLL = "read and written by poll id from chats of both kinds; candidate for a group of its own"
_MEDIA = (
    "looked up by file id from any chat (the id alone, no owner): stays on the coordinator; "
    "candidate for a group of its own keyed by id"
)

TABLES: dict[str, Role] = {
    # Django
    "auth_group": local(_DJANGO),
    "auth_group_permissions": local(_DJANGO),
    "auth_permission": local(_DJANGO),
    "auth_user": local("operators of the console"),
    "auth_user_groups": local(_DJANGO),
    "auth_user_user_permissions": local(_DJANGO),
    "django_admin_log": local(_DJANGO),
    "django_content_type": local(_DJANGO),
    "django_migrations": local(_DJANGO),
    "django_session": local("console sessions"),
    # edge: keys are found by auth_key_id alone, before any user is known
    "edge_auth_keys": local("found by auth_key_id before a user is known; cached by listeners"),
    "edge_auth_key_clients": local("one row per auth key, next to edge_auth_keys"),
    # accounts
    "users": by_user(
        "id",
        "the group head: one row per user, with the per-user account pts written by every update",
    ),
    "user_phones": reference("global uniqueness of phone numbers, found at sign-in"),
    "user_usernames": reference("global uniqueness of usernames, found by contacts.resolveUsername"),
    "login_codes": local("found by phone_code_hash during sign-in, short-lived"),
    "login_tokens": local("found by token during QR login, short-lived"),
    "authorizations": local("found by perm_auth_key_id on every new connection"),
    "account_settings": by_user(),
    "blocks": by_user("owner_id"),
    "contacts": by_user("owner_id"),
    "notify_settings": by_user(),
    "privacy_settings": by_user(),
    "takeout_sessions": by_user(),
    "two_step_passwords": by_user(),
    "user_update_events": by_user(why="the per-user pts log read by getDifference"),
    "user_recent_reactions": by_user(),
    "user_top_reactions": by_user(),
    "user_saved_reaction_tags": by_user(),
    "user_reports": local("the moderators' queue, listed across all users"),
    "langpack_languages": reference("the language catalogue, read on every langpack call"),
    "langpack_strings": reference("the language catalogue, read on every langpack call"),
    # channels
    "channels": by_channel("id", "the group head"),
    "channel_members": by_channel(),
    "channel_messages": by_channel(),
    "channel_update_events": by_channel(why="the per-channel pts log"),
    "channel_forum_topics": by_channel(),
    "channel_message_viewers": by_channel(),
    "channel_media_reads": by_channel(),
    "channel_message_reactions": by_channel(),
    "channel_invites": by_channel(),
    "channel_invite_importers": by_channel(),
    "channel_pinned_messages": by_channel(),
    "channel_join_settings": by_channel(),
    "channel_admin_log_events": by_channel(),
    "channel_usernames": reference("global uniqueness of public links, found by name"),
    "channel_invite_hashes": reference("invite links are found by their hash alone"),
    "channel_dialogs": by_user(why="a user's dialog list is read by user"),
    "channel_thread_reads": by_user(),
    "channel_unread_mentions": by_user(),
    "user_channel_member_index": by_user(why="a user's channels, read by user"),
    "dialog_drafts": by_user("owner_id"),
    # private chats
    "private_messages": by_user("sender_id", "the text of a private message, once"),
    "private_message_boxes": by_user("owner_id", "each side's copy: its message ids and state"),
    "private_dialogs": by_user("owner_id"),
    "private_message_reactions": by_user(),
    "private_read_dates": by_user("owner_id"),
    "private_saved_dialog_pins": by_user("owner_id"),
    # media
    "media_photos": local(_MEDIA),
    "media_documents": local(_MEDIA),
    "media_holders": local("which chat or user holds a file; next to media_photos/documents"),
    "media_profile_photos": by_user(),
    "media_wallpapers": reference("the wallpaper catalogue, found by slug or id"),
    "media_user_wallpapers": by_user(),
    "media_chat_wallpapers": by_user("owner_id"),
    "media_saved_ringtones": by_user(),
    # stickers
    "sticker_sets": reference("the sticker catalogue, found by short name or id"),
    "sticker_set_items": reference("the sticker catalogue's documents"),
    "sticker_attached_sets": reference("sets attached to a file, found by the file"),
    "sticker_emoji_keyword_versions": reference("a handful of versions of the keyword list"),
    "sticker_installed": by_user(),
    "sticker_user_documents": by_user(),
    "sticker_group_sets": by_channel(),
    # polls, bots, scheduling, previews, filters, Bot API
    "polls": local(_POLL),
    "poll_votes": local(_POLL),
    "bots": by_user(why="the bot's own user id"),
    "bot_command_sets": by_user("bot_id"),
    "bot_service_chats": by_user(),
    "bot_web_apps": by_user("bot_id", "a bot's named Mini Apps"),
    "scheduled_messages": local(
        "claimed across all users by due date with FOR UPDATE SKIP LOCKED, which Citus runs only on one shard"
    ),
    "phone_calls": local(
        "a call belongs to two users and is found by its id; the timeout job claims due calls with"
        " FOR UPDATE SKIP LOCKED across all users"
    ),
    "group_calls": local(
        "found by the call id clients hold (inputGroupCall); the liveness job and the console"
        " read live calls across all chats"
    ),
    "group_call_participants": local("found by call id and source; next to group_calls"),
    "group_call_subscribers": local("found by call id when a scheduled call starts; next to group_calls"),
    "group_call_join_as": local("a user's saved join-as peer per chat, read next to group_calls at join"),
    "webpages": local("link previews are shared by every chat, found by URL"),
    "webpage_refs": local("which messages show a preview; next to webpages"),
    "dialog_filters": by_user(),
    "chatlist_invites": local("folder links are found by their slug alone and listed by the console"),
    "chatlist_joins": by_user(),
    "botapi_state": by_user("bot_id"),
    "botapi_updates": by_user("bot_id", "each bot's durable update queue"),
    "botapi_chat_members": by_user("bot_id", "what each bot was last told of its membership in a chat"),
}


def distributed(group: str | None = None) -> dict[str, Role]:
    return {
        table: role
        for table, role in TABLES.items()
        if role.kind == DISTRIBUTED and (group is None or role.group == group)
    }


def citus_calls() -> list[str]:
    """The calls that shard a migrated database, in an order Citus accepts: reference
    tables, then each group's head, then the rest of each group; within a kind, in the
    order of ``TABLES``, where a referenced table comes before those that reference it
    (the test checks it)."""
    refs = [t for t, r in TABLES.items() if r.kind == REFERENCE]
    calls = [f"SELECT create_reference_table('{table}');" for table in refs]
    for group, head in GROUP_HEADS.items():
        column = TABLES[head].column
        calls.append(f"SELECT create_distributed_table('{head}', '{column}', colocate_with => 'none');")
        for table, role in distributed(group).items():
            if table != head:
                calls.append(
                    f"SELECT create_distributed_table('{table}', '{role.column}', colocate_with => '{head}');"
                )
    return calls


def markdown_table() -> str:
    order = {DISTRIBUTED: 0, REFERENCE: 1, LOCAL: 2}
    rows = sorted(TABLES.items(), key=lambda item: (order[item[1].kind], item[1].group or "", item[0]))
    lines = ["| table | role | why |", "|---|---|---|"]
    lines += [f"| `{table}` | {role.label()} | {role.why} |" for table, role in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
    print()
    print("\n".join(citus_calls()))
