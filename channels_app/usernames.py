"""Channel usernames in the namespace accounts_app owns (users and channels together)."""

from __future__ import annotations

from django.db import connection


def channel_holds(name_lower: str) -> bool:
    with connection.cursor() as cur:
        cur.execute("SELECT 1 FROM channel_usernames WHERE username_lower = %s", [name_lower])
        return cur.fetchone() is not None


def install() -> None:
    from accounts_app.usernames import register_username_owner

    register_username_owner(channel_holds)
