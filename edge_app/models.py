"""What the edge persists: auth keys and what each key's client said about itself."""

from django.db import models


class AuthKeyRecord(models.Model):
    """An MTProto auth key. Permanent keys carry authorizations; temporary keys (what
    Telegram Desktop encrypts with) expire and are bound to a permanent one."""

    auth_key_id = models.BigIntegerField(primary_key=True)
    key = models.BinaryField(editable=False)
    created = models.DateTimeField()
    expires_at = models.DateTimeField(null=True, blank=True, db_index=True, help_text="temporary keys only")
    perm_auth_key_id = models.BigIntegerField(
        null=True, blank=True, db_index=True, help_text="the permanent key a temporary key is bound to"
    )
    bound_at = models.DateTimeField(null=True, blank=True)
    dc_id = models.SmallIntegerField(default=0)

    class Meta:
        db_table = "edge_auth_keys"
        verbose_name = "auth key"

    def __str__(self) -> str:
        kind = "temporary" if self.expires_at else "permanent"
        return f"{kind} key {self.auth_key_id & 0xFFFFFFFFFFFFFFFF:016x}"


class AuthKeyClient(models.Model):
    """The latest initConnection seen on an auth key."""

    auth_key_id = models.BigIntegerField(primary_key=True)
    api_id = models.IntegerField(default=0)
    device_model = models.CharField(max_length=256, blank=True)
    system_version = models.CharField(max_length=256, blank=True)
    app_version = models.CharField(max_length=256, blank=True)
    system_lang_code = models.CharField(max_length=32, blank=True)
    lang_pack = models.CharField(max_length=64, blank=True)
    lang_code = models.CharField(max_length=32, blank=True)
    layer = models.IntegerField(default=0)
    ip = models.CharField(max_length=64, blank=True)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "edge_auth_key_clients"
        verbose_name = "auth key client"

    def __str__(self) -> str:
        return f"{self.device_model} / {self.app_version} (api {self.api_id})"
