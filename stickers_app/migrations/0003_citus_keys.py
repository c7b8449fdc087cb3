"""Primary keys Citus accepts (telesrv_project/sharding.py): each row is kept with its user or channel, so the key includes
the distribution column; ``id`` stays first, and the model's primary key, so lookups by id
alone keep their index."""

from django.db import migrations

REKEYED = [
    ("sticker_installed", "user_id"),
    ("sticker_user_documents", "user_id"),
    ("sticker_group_sets", "channel_id"),
]


def rekey(table, column):
    return migrations.RunSQL(
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id, {column})",
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id)",
    )


class Migration(migrations.Migration):
    dependencies = [("stickers_app", "0002_emoji_keyword_versions")]

    operations = [rekey(table, column) for table, column in REKEYED]
