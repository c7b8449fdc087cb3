"""channels.call_id / call_access_hash / call_not_empty: the chat's group call as every
render of the chat shows it (call_active, call_not_empty, channelFull.call)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("channels_app", "0018_data_scale_indexes")]

    operations = [
        migrations.AddField(
            model_name="channel", name="call_id", field=models.BigIntegerField(db_default=0, default=0)
        ),
        migrations.AddField(
            model_name="channel",
            name="call_access_hash",
            field=models.BigIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="channel",
            name="call_not_empty",
            field=models.BooleanField(db_default=False, default=False),
        ),
    ]
