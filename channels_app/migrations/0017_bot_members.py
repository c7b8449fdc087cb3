"""channels.bot_members: how many active members are bots, kept by a trigger on
channel_members so that every path that changes a membership (joins, invites, kicks,
bans, leaves, ownership moves, raw bench inserts) keeps it right without knowing of it.
Sends into a chat without bots then skip the bots' update queues (botapi_app) at no
cost: the send already reads the channel row."""

from django.db import migrations, models

FUNCTION = """
CREATE OR REPLACE FUNCTION channel_members_count_bots() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    delta integer := 0;
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.status IS NOT DISTINCT FROM NEW.status THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.status = 'active'
       AND EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id AND bot IS NOT NULL) THEN
        delta := delta - 1;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.status = 'active'
       AND EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id AND bot IS NOT NULL) THEN
        delta := delta + 1;
    END IF;
    IF delta <> 0 THEN
        UPDATE channels SET bot_members = GREATEST(0, bot_members + delta)
         WHERE id = COALESCE(NEW.channel_id, OLD.channel_id);
    END IF;
    RETURN NULL;
END $$;
"""

TRIGGER = """
CREATE TRIGGER channel_members_count_bots
AFTER INSERT OR DELETE OR UPDATE OF status ON channel_members
FOR EACH ROW EXECUTE FUNCTION channel_members_count_bots();
"""

BACKFILL = """
UPDATE channels c SET bot_members = n.count FROM (
    SELECT m.channel_id, count(*) AS count FROM channel_members m JOIN users u ON u.id = m.user_id
     WHERE m.status = 'active' AND u.bot IS NOT NULL GROUP BY m.channel_id
) n WHERE c.id = n.channel_id;
"""

DROP = """
DROP TRIGGER IF EXISTS channel_members_count_bots ON channel_members;
DROP FUNCTION IF EXISTS channel_members_count_bots();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("channels_app", "0016_citus_keys"),
        ("accounts_app", "0012_password_reset"),
    ]

    operations = [
        migrations.AddField(
            model_name="channel",
            name="bot_members",
            field=models.IntegerField(db_default=0, default=0),
        ),
        migrations.RunSQL(FUNCTION + TRIGGER + BACKFILL, DROP),
    ]
