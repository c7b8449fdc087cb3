"""User ids come from a range no client reserves: the users sequence moves up to
accounts_app.models.USER_ID_BASE unless it is already past it. Existing accounts keep
their ids (clients cache them); only accounts created after this get large ones."""

from django.db import migrations

USER_ID_BASE = 5_000_000_000  # accounts_app.models.USER_ID_BASE when this was written

FORWARD = f"""
SELECT setval(pg_get_serial_sequence('users', 'id'),
              GREATEST((SELECT last_value FROM users_id_seq), {USER_ID_BASE} - 1))
"""


class Migration(migrations.Migration):
    dependencies = [("accounts_app", "0013_citus_keys")]

    operations = [migrations.RunSQL(FORWARD, migrations.RunSQL.noop)]
