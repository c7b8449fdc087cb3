"""Indexes for costs that follow the answer, not the data (docs/performance.md, "Data
scale"): channels.getParticipants' recent filter reads a page of the active members in
its order instead of sorting every member per page. On the partitioned parent it is
built on every partition."""

from django.db import migrations

INDEXES = (
    (
        "channel_members_recent_idx",
        "channel_members (channel_id, joined_at DESC, user_id DESC) WHERE status = 'active'",
    ),
)


class Migration(migrations.Migration):
    dependencies = [("channels_app", "0017_bot_members")]

    operations = [
        migrations.RunSQL(f"CREATE INDEX IF NOT EXISTS {name} ON {body}", f"DROP INDEX IF EXISTS {name}")
        for name, body in INDEXES
    ]
