"""Media metadata. The bytes live in the media storage (``storage``), content-addressed
by SHA-256; these rows say what a photo or document is and where its sizes are."""

from django.db import models


class Photo(models.Model):
    id = models.BigIntegerField(primary_key=True)
    access_hash = models.BigIntegerField()
    file_reference = models.BinaryField()
    owner_id = models.BigIntegerField()  # the uploader
    date = models.IntegerField()
    # The size ladder: [{"type", "w", "h", "size", "sha256"}], smallest first.
    sizes = models.JSONField(default=list)
    stripped = models.BinaryField(default=b"")  # photoStrippedSize bytes ("i")

    class Meta:
        db_table = "media_photos"


class Document(models.Model):
    id = models.BigIntegerField(primary_key=True)
    access_hash = models.BigIntegerField()
    file_reference = models.BinaryField()
    owner_id = models.BigIntegerField()
    date = models.IntegerField()
    mime_type = models.CharField(max_length=128)
    size = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    attributes = models.JSONField(default=list)  # [{"_": "filename", ...}]
    thumbs = models.JSONField(default=list)  # as Photo.sizes
    stripped = models.BinaryField(default=b"")

    class Meta:
        db_table = "media_documents"


class MediaHolder(models.Model):
    """Who may download a photo or document besides its uploader: the members of a
    channel whose message (or chat photo) holds it ("c"), a user whose private box
    holds it ("u"), or everyone who can see a user's profile photo ("public")."""

    id = models.BigAutoField(primary_key=True)
    kind = models.CharField(max_length=1)  # "p" photo, "d" document, "l" poll (polls_app)
    media_id = models.BigIntegerField()
    holder = models.CharField(max_length=8)  # "c", "u", "public"
    holder_id = models.BigIntegerField(default=0)

    class Meta:
        db_table = "media_holders"
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "media_id", "holder", "holder_id"], name="media_holders_unique"
            )
        ]


class ProfilePhoto(models.Model):
    """A user's profile photos, newest first by ``date`` (the current one is the newest)."""

    id = models.BigAutoField(primary_key=True)
    user_id = models.BigIntegerField()
    photo_id = models.BigIntegerField()
    date = models.IntegerField()

    class Meta:
        db_table = "media_profile_photos"
        indexes = [models.Index(fields=["user_id", "-date"], name="media_profile_user_date")]
        constraints = [
            models.UniqueConstraint(fields=["user_id", "photo_id"], name="media_profile_user_photo")
        ]
