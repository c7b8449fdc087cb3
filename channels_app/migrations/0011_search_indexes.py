"""Trigram indexes for text search (the design's names): channel message bodies for
messages.searchGlobal / channels.searchPosts, and public channels' titles and usernames
for contacts.search. A GIN index on the partitioned parent is built on every partition."""

from django.db import migrations

INDEXES = (
    ("channel_messages_body_trgm_idx", "channel_messages USING gin (message gin_trgm_ops)"),
    (
        "channels_public_title_trgm_idx",
        "channels USING gin (lower(title) gin_trgm_ops) WHERE username <> '' AND NOT deleted",
    ),
    (
        "channels_public_username_trgm_idx",
        "channels USING gin (lower(username) gin_trgm_ops) WHERE username <> '' AND NOT deleted",
    ),
)


class Migration(migrations.Migration):
    dependencies = [("channels_app", "0010_appearance")]

    operations = [
        migrations.RunSQL("CREATE EXTENSION IF NOT EXISTS pg_trgm", migrations.RunSQL.noop),
        *(
            migrations.RunSQL(f"CREATE INDEX IF NOT EXISTS {name} ON {body}", f"DROP INDEX IF EXISTS {name}")
            for name, body in INDEXES
        ),
    ]
