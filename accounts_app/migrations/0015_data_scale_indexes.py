"""Indexes for costs that follow the answer, not the data (docs/performance.md, "Data
scale"):

- names and usernames by trigram, for the member search of channels.getParticipants
  (Django's ``icontains`` is ``UPPER(col::text) LIKE UPPER(...)``; without them every
  search read the whole users table);
- the bots among the users (channelFull.bot_info probes the members with them);
- the self-destruct job's due rows: users by the time they were last active (past the
  default TTL) and the accounts that chose a shorter TTL.
"""

from django.db import migrations

INDEXES = (
    ("users_first_name_trgm_idx", "users USING gin (UPPER(first_name::text) gin_trgm_ops)"),
    ("users_last_name_trgm_idx", "users USING gin (UPPER(last_name::text) gin_trgm_ops)"),
    (
        "users_username_trgm_idx",
        "users USING gin (UPPER(username::text) gin_trgm_ops) WHERE username IS NOT NULL",
    ),
    ("users_bots_idx", "users (id) WHERE bot IS NOT NULL"),
    ("users_idle_idx", "users ((GREATEST(created, last_seen))) WHERE NOT deleted"),
    ("account_settings_short_ttl_idx", "account_settings (user_id) WHERE ttl_days > 0 AND ttl_days < 365"),
)


class Migration(migrations.Migration):
    dependencies = [("accounts_app", "0014_user_ids_above_reserved")]

    operations = [
        migrations.RunSQL("CREATE EXTENSION IF NOT EXISTS pg_trgm", migrations.RunSQL.noop),
        *(
            migrations.RunSQL(f"CREATE INDEX IF NOT EXISTS {name} ON {body}", f"DROP INDEX IF EXISTS {name}")
            for name, body in INDEXES
        ),
    ]
