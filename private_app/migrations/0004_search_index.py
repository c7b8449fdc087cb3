"""A trigram index on private message bodies for messages.searchGlobal."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("private_app", "0003_media")]

    operations = [
        migrations.RunSQL("CREATE EXTENSION IF NOT EXISTS pg_trgm", migrations.RunSQL.noop),
        migrations.RunSQL(
            "CREATE INDEX IF NOT EXISTS private_messages_body_trgm_idx ON private_messages"
            " USING gin (message gin_trgm_ops)",
            "DROP INDEX IF EXISTS private_messages_body_trgm_idx",
        ),
    ]
