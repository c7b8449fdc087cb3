"""The text index of private messages keyed by sender (issue 48): a search in one chat
asks for its two users' matches, and with the text alone in the index a word rare in
this chat but common in other users' chats read every user's matches (the trigram
bitmap of the whole table) before the senders filtered them. ``btree_gin`` puts
``sender_id`` in the GIN index beside the trigrams, so the scan intersects the word's
entries with the sender's. Citus distributes private_messages by sender_id: the index
is per shard and per sender either way."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("private_app", "0009_dialog_message_count")]

    operations = [
        migrations.RunSQL("CREATE EXTENSION IF NOT EXISTS btree_gin", migrations.RunSQL.noop),
        migrations.RunSQL(
            "CREATE INDEX IF NOT EXISTS private_messages_sender_body_trgm_idx ON private_messages"
            " USING gin (sender_id, message gin_trgm_ops)",
            "DROP INDEX IF EXISTS private_messages_sender_body_trgm_idx",
        ),
        # Only the chat search read the text-only index (searchGlobal's private side
        # walks the owner's boxes): one GIN index less to write on every private send.
        migrations.RunSQL(
            "DROP INDEX IF EXISTS private_messages_body_trgm_idx",
            "CREATE INDEX IF NOT EXISTS private_messages_body_trgm_idx ON private_messages"
            " USING gin (message gin_trgm_ops)",
        ),
    ]
