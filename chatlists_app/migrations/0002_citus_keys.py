"""Primary keys Citus accepts (telesrv_project/sharding.py): joined folders are kept per
user, so the key includes the distribution column; ``id`` stays first."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("chatlists_app", "0001_initial")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE chatlist_joins DROP CONSTRAINT chatlist_joins_pkey, ADD PRIMARY KEY (id, user_id)",
            "ALTER TABLE chatlist_joins DROP CONSTRAINT chatlist_joins_pkey, ADD PRIMARY KEY (id)",
        )
    ]
