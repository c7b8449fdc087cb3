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


class WallPaper(models.Model):
    """A chat background uploaded by a user (account.uploadWallPaper): an image document
    anyone may fetch by its ``slug`` (t.me/bg/<slug>), as on Telegram."""

    id = models.BigIntegerField(primary_key=True)
    access_hash = models.BigIntegerField()
    slug = models.CharField(max_length=64, unique=True)
    creator_id = models.BigIntegerField()
    document_id = models.BigIntegerField()
    pattern = models.BooleanField(default=False)
    dark = models.BooleanField(default=False)
    settings = models.JSONField(default=dict)  # as uploaded
    date = models.IntegerField()

    class Meta:
        db_table = "media_wallpapers"


class UserWallPaper(models.Model):
    """A wallpaper in a user's saved list (account.saveWallPaper / installWallPaper),
    with the user's settings (blur, motion, colours, intensity)."""

    id = models.BigAutoField(primary_key=True)
    user_id = models.BigIntegerField()
    wallpaper = models.ForeignKey(WallPaper, on_delete=models.CASCADE, db_constraint=False, related_name="+")
    settings = models.JSONField(default=dict)
    installed = models.BooleanField(default=False)
    saved = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "media_user_wallpapers"
        constraints = [
            models.UniqueConstraint(fields=["user_id", "wallpaper"], name="media_user_wallpapers_uniq")
        ]
        indexes = [models.Index(fields=["user_id", "-saved"], name="media_user_wallpapers_recent")]


class ChatWallPaper(models.Model):
    """messages.setChatWallPaper: the background ``owner`` sees in their private chat
    with ``peer_id``; ``for_both`` also set it for the peer (their own row)."""

    id = models.BigAutoField(primary_key=True)
    owner_id = models.BigIntegerField()
    peer_id = models.BigIntegerField()
    wallpaper = models.ForeignKey(WallPaper, on_delete=models.CASCADE, db_constraint=False, related_name="+")
    settings = models.JSONField(default=dict)
    # set by the peer for both sides (not the owner's own choice)
    from_peer = models.BooleanField(default=False)

    class Meta:
        db_table = "media_chat_wallpapers"
        constraints = [
            models.UniqueConstraint(fields=["owner_id", "peer_id"], name="media_chat_wallpapers_uniq")
        ]


class SavedRingtone(models.Model):
    """A notification sound in a user's list (account.uploadRingtone / saveRingtone):
    an audio document of the media store. Newest first, as Telegram lists them."""

    id = models.BigAutoField(primary_key=True)
    user_id = models.BigIntegerField()
    document_id = models.BigIntegerField()
    date = models.IntegerField()

    class Meta:
        db_table = "media_saved_ringtones"
        constraints = [models.UniqueConstraint(fields=["user_id", "document_id"], name="saved_ringtone_uniq")]
        indexes = [models.Index(fields=["user_id", "-id"], name="saved_ringtones_user")]
