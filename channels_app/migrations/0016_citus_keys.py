"""Primary keys Citus accepts (telesrv_project/sharding.py): drafts are kept per owner, so the key includes
the distribution column; ``id`` stays first, and the model's primary key, so lookups by id
alone keep their index."""

from django.db import migrations

REKEYED = [
    ("dialog_drafts", "owner_id"),
]


def rekey(table, column):
    return migrations.RunSQL(
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id, {column})",
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id)",
    )


class Migration(migrations.Migration):
    dependencies = [("channels_app", "0015_media_reads")]

    operations = [rekey(table, column) for table, column in REKEYED]
