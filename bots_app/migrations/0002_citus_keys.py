"""Keys Citus accepts (telesrv_project/sharding.py): bots are distributed by their user id,
their owner's row lives elsewhere, and command sets are keyed with their bot."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts_app", "0013_citus_keys"),
        ("bots_app", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name="bot",
            name="owner",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="accounts_app.user",
            ),
        ),
        migrations.RunSQL(
            "ALTER TABLE bot_command_sets DROP CONSTRAINT bot_command_sets_pkey, ADD PRIMARY KEY (id, bot_id)",
            "ALTER TABLE bot_command_sets DROP CONSTRAINT bot_command_sets_pkey, ADD PRIMARY KEY (id)",
        ),
    ]
