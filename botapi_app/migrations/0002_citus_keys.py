"""Primary keys Citus accepts (telesrv_project/sharding.py): a bot's queue is kept with the bot, so the key includes
the distribution column; ``id`` stays first, and the model's primary key, so lookups by id
alone keep their index."""

from django.db import migrations

REKEYED = [
    ("botapi_updates", "bot_id"),
]


def rekey(table, column):
    return migrations.RunSQL(
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id, {column})",
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id)",
    )


class Migration(migrations.Migration):
    dependencies = [("botapi_app", "0001_initial")]

    operations = [rekey(table, column) for table, column in REKEYED]
