"""QR login tokens (auth.exportLoginToken / acceptLoginToken)."""

from django.db import models


class LoginToken(models.Model):
    """A token a not-yet-logged-in key shows as a QR code; a logged-in device of
    ``accepted_by`` accepts it and the key becomes that user's authorization.

    One live token per key: each export replaces the key's unaccepted tokens. The device
    fields are what the exporting key told initConnection, copied onto its authorization
    when the token is accepted.
    """

    token = models.BinaryField(unique=True)
    perm_auth_key_id = models.BigIntegerField(db_index=True)
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    device = models.JSONField(default=dict)
    # auth.exportLoginToken(except_ids): users the device already has; they cannot accept.
    except_ids = models.JSONField(default=list)
    accepted_by = models.BigIntegerField(null=True, blank=True)
    accepted = models.DateTimeField(null=True, blank=True)
    # The exporting key collected its loginTokenSuccess: the token never works again.
    consumed = models.BooleanField(default=False)

    class Meta:
        db_table = "login_tokens"
