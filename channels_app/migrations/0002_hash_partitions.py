"""HASH partitions for every partitioned channel table (modulus = models.PARTITIONS)."""

from django.db import migrations
from psqlextra.backend.migrations.operations import PostgresAddHashPartition

# Frozen here on purpose: the partition count of an existing database never follows a
# later edit of models.PARTITIONS.
MODULUS = 16

TABLES = {
    "channel": "channels",
    "channelmember": "channel_members",
    "userchannelmemberindex": "user_channel_member_index",
    "channelmessage": "channel_messages",
    "channelupdateevent": "channel_update_events",
    "channeldialog": "channel_dialogs",
}


class Migration(migrations.Migration):
    dependencies = [("channels_app", "0001_initial")]

    operations = [
        PostgresAddHashPartition(model_name=model, name=f"p{r:02d}", modulus=MODULUS, remainder=r)
        for model in TABLES
        for r in range(MODULUS)
    ]
