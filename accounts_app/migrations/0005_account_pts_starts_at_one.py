from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts_app", "0004_login_code_delivery"),
    ]

    operations = [
        migrations.AlterField(model_name="user", name="pts", field=models.BigIntegerField(default=1)),
        # An account still at 0 has logged nothing: moving it to 1 skips no event.
        migrations.RunSQL("UPDATE users SET pts = 1 WHERE pts = 0", migrations.RunSQL.noop),
    ]
