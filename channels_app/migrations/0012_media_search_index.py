"""The media rows of channel messages by channel and date, for messages.searchGlobal's
media filters across the user's channels: a filter without text reads only messages
that carry media instead of every message of every channel."""

from django.db import migrations

NAME = "channel_messages_media_date_idx"


class Migration(migrations.Migration):
    dependencies = [("channels_app", "0011_search_indexes")]

    operations = [
        migrations.RunSQL(
            f"CREATE INDEX IF NOT EXISTS {NAME} ON channel_messages (channel_id, date DESC, id DESC)"
            " WHERE media IS NOT NULL AND NOT deleted",
            f"DROP INDEX IF EXISTS {NAME}",
        )
    ]
