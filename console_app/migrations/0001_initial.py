"""No tables: the console's models are unmanaged (its permissions and admin views of
the channel tables)."""

from django.db import migrations, models


def _unmanaged(name, table, fields, verbose_name, permissions=(), default_permissions=("view",)):
    return migrations.CreateModel(
        name=name,
        fields=fields,
        options={
            "managed": False,
            "db_table": table,
            "verbose_name": verbose_name,
            "default_permissions": default_permissions,
            "permissions": list(permissions),
        },
    )


class Migration(migrations.Migration):
    initial = True
    dependencies = []

    operations = [
        _unmanaged(
            "ConsoleAccess",
            "console_no_table",
            [("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False))],
            "console access",
            permissions=[
                ("moderate_channels", "Run moderation actions (ban, delete, revoke, approve)"),
                ("terminate_authorizations", "Terminate a user's authorization (log a device out)"),
                ("view_pts_state", "View the channel pts / update log state page"),
            ],
            default_permissions=(),
        ),
        _unmanaged(
            "Member",
            "channel_members",
            [("user_id", models.BigIntegerField(primary_key=True, serialize=False))],
            "channel member",
        ),
        _unmanaged(
            "Message",
            "channel_messages",
            [("id", models.IntegerField(primary_key=True, serialize=False))],
            "channel message",
        ),
        _unmanaged(
            "UpdateEvent",
            "channel_update_events",
            [("pts", models.IntegerField(primary_key=True, serialize=False))],
            "channel update event",
        ),
        _unmanaged(
            "Invite",
            "channel_invites",
            [("id", models.BigIntegerField(primary_key=True, serialize=False))],
            "invite link",
        ),
        _unmanaged(
            "Importer",
            "channel_invite_importers",
            [("user_id", models.BigIntegerField(primary_key=True, serialize=False))],
            "join request or link importer",
        ),
        _unmanaged(
            "AdminLogEvent",
            "channel_admin_log_events",
            [("id", models.BigIntegerField(primary_key=True, serialize=False))],
            "admin log event",
        ),
    ]
