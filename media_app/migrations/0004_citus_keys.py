"""Primary keys Citus accepts (telesrv_project/sharding.py): each row is kept with its user, so the key includes
the distribution column; ``id`` stays first, and the model's primary key, so lookups by id
alone keep their index."""

from django.db import migrations

REKEYED = [
    ("media_profile_photos", "user_id"),
    ("media_user_wallpapers", "user_id"),
    ("media_chat_wallpapers", "owner_id"),
    ("media_saved_ringtones", "user_id"),
]


def rekey(table, column):
    return migrations.RunSQL(
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id, {column})",
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id)",
    )


class Migration(migrations.Migration):
    dependencies = [("media_app", "0003_saved_ringtones")]

    operations = [rekey(table, column) for table, column in REKEYED]
