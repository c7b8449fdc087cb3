"""Primary keys Citus accepts (telesrv_project/sharding.py): each row is kept with its user, so the key includes
the distribution column; ``id`` stays first, and the model's primary key, so lookups by id
alone keep their index."""

from django.db import migrations

REKEYED = [
    ("private_messages", "sender_id"),
    ("private_message_boxes", "owner_id"),
    ("private_dialogs", "owner_id"),
    ("private_message_reactions", "user_id"),
    ("private_read_dates", "owner_id"),
    ("private_saved_dialog_pins", "owner_id"),
]


def rekey(table, column):
    return migrations.RunSQL(
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id, {column})",
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id)",
    )


class Migration(migrations.Migration):
    dependencies = [("private_app", "0007_saved_sublists")]

    operations = [rekey(table, column) for table, column in REKEYED]
