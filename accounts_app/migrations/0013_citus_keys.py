"""Keys Citus accepts (telesrv_project/sharding.py): users are distributed by id, so the
global uniqueness of phones and usernames moves to two lookup tables kept by a trigger;
user-distributed tables get primary keys that include their distribution column (``id``
first, so lookups by id alone keep their index); foreign keys that would cross shards
are dropped (the ORM still cascades)."""

import django.db.models.deletion
import django.db.models.functions.text
from django.db import migrations, models

REKEYED = [
    ("contacts", "owner_id"),
    ("blocks", "owner_id"),
    ("user_update_events", "user_id"),
    ("notify_settings", "user_id"),
    ("privacy_settings", "user_id"),
    ("takeout_sessions", "user_id"),
    ("user_recent_reactions", "user_id"),
    ("user_top_reactions", "user_id"),
    ("user_saved_reaction_tags", "user_id"),
]


def rekey(table, column):
    return migrations.RunSQL(
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id, {column})",
        f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, ADD PRIMARY KEY (id)",
    )


FILL_LOOKUPS = """
INSERT INTO user_phones (phone, user_id) SELECT phone, id FROM users;
INSERT INTO user_usernames (username_lower, user_id)
    SELECT lower(username), id FROM users WHERE username IS NOT NULL;
"""

# A claim that another user holds fails the statement that changed ``users`` with the
# lookup table's unique violation, as the unique indexes on users did.
TRIGGER = """
CREATE FUNCTION users_keep_unique_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND (TG_OP = 'DELETE' OR OLD.phone IS DISTINCT FROM NEW.phone) THEN
        DELETE FROM user_phones WHERE phone = OLD.phone AND user_id = OLD.id;
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.username IS NOT NULL
            AND (TG_OP = 'DELETE' OR lower(OLD.username) IS DISTINCT FROM lower(NEW.username)) THEN
        DELETE FROM user_usernames WHERE username_lower = lower(OLD.username) AND user_id = OLD.id;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND OLD.phone IS DISTINCT FROM NEW.phone) THEN
        INSERT INTO user_phones (phone, user_id) VALUES (NEW.phone, NEW.id);
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.username IS NOT NULL
            AND (TG_OP = 'INSERT' OR lower(OLD.username) IS DISTINCT FROM lower(NEW.username)) THEN
        INSERT INTO user_usernames (username_lower, user_id) VALUES (lower(NEW.username), NEW.id);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER users_unique_keys AFTER INSERT OR DELETE OR UPDATE OF phone, username ON users
    FOR EACH ROW EXECUTE FUNCTION users_keep_unique_keys();
CREATE FUNCTION users_truncate_unique_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE user_phones, user_usernames;
    RETURN NULL;
END
$$;
CREATE TRIGGER users_truncate_unique_keys AFTER TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION users_truncate_unique_keys();
"""

DROP_TRIGGER = """
DROP TRIGGER users_truncate_unique_keys ON users;
DROP FUNCTION users_truncate_unique_keys();
DROP TRIGGER users_unique_keys ON users;
DROP FUNCTION users_keep_unique_keys();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("accounts_app", "0012_password_reset"),
    ]

    operations = [
        migrations.CreateModel(
            name="UserPhone",
            fields=[
                ("phone", models.CharField(max_length=32, primary_key=True, serialize=False)),
                ("user_id", models.BigIntegerField()),
            ],
            options={
                "db_table": "user_phones",
            },
        ),
        migrations.CreateModel(
            name="UserUsername",
            fields=[
                ("username_lower", models.CharField(max_length=32, primary_key=True, serialize=False)),
                ("user_id", models.BigIntegerField()),
            ],
            options={
                "db_table": "user_usernames",
            },
        ),
        migrations.RunSQL(FILL_LOOKUPS, migrations.RunSQL.noop),
        migrations.RunSQL(TRIGGER, DROP_TRIGGER),
        *(rekey(table, column) for table, column in REKEYED),
        migrations.RemoveConstraint(
            model_name="user",
            name="users_username_lower_uniq",
        ),
        migrations.AlterField(
            model_name="authorization",
            name="user",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="authorizations",
                to="accounts_app.user",
            ),
        ),
        migrations.AlterField(
            model_name="block",
            name="user",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="accounts_app.user",
            ),
        ),
        migrations.AlterField(
            model_name="contact",
            name="user",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="accounts_app.user",
            ),
        ),
        migrations.AlterField(
            model_name="user",
            name="phone",
            field=models.CharField(db_index=True, help_text="digits only, no leading +", max_length=32),
        ),
        migrations.AddIndex(
            model_name="user",
            index=models.Index(
                django.db.models.functions.text.Lower("username"), name="users_username_lower"
            ),
        ),
    ]
