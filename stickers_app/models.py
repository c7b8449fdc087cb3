"""Sticker sets made by users (and imported by operators), what each user keeps of
them (installed and archived sets, recent and faved stickers, saved GIFs) and the
sets a megagroup chose. The files themselves are media_app documents: a set's
stickers are documents of their own, made from the uploaded file by
``stickers_app.sets``; these rows only say which belong where."""

from django.db import models

KINDS = ("stickers", "masks", "emojis")


class StickerSet(models.Model):
    id = models.BigIntegerField(primary_key=True)
    access_hash = models.BigIntegerField()
    owner_id = models.BigIntegerField()  # 0: imported by an operator
    title = models.CharField(max_length=64)
    short_name = models.CharField(max_length=64)
    # Short names are unique regardless of case, as on Telegram.
    short_name_lower = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=8, default="stickers")  # KINDS
    text_color = models.BooleanField(default=False)
    # Changes with every edit: clients compare it (getStickerSet's hash, getAllStickers).
    hash = models.IntegerField(default=0)
    created = models.IntegerField()
    # Set cover: a sticker document of the set, or a 100 px thumb document of its own.
    thumb_document_id = models.BigIntegerField(null=True)
    thumb_version = models.IntegerField(default=0)
    featured_at = models.IntegerField(default=0)  # > 0: featured by the operator, newest first
    software = models.CharField(max_length=64, default="")
    # An operator's set standing in for one of Telegram's built-in sets clients ask for
    # by kind ("animated_emoji", "dice:🎲", "emoji_default_statuses", ...; catalog.SPECIAL).
    special = models.CharField(max_length=40, default="", db_index=True)

    class Meta:
        db_table = "sticker_sets"
        indexes = [
            models.Index(fields=["owner_id"], name="sticker_sets_owner"),
            models.Index(fields=["-featured_at"], name="sticker_sets_featured"),
        ]


class SetSticker(models.Model):
    """One sticker of a set: its document, place, emoji and search keywords."""

    id = models.BigAutoField(primary_key=True)
    set_id = models.BigIntegerField()
    document_id = models.BigIntegerField(unique=True)
    position = models.IntegerField()
    emoji = models.CharField(max_length=64)
    keywords = models.JSONField(default=list)
    mask_coords = models.JSONField(null=True)
    uses = models.BigIntegerField(default=0)  # messages sent with it

    class Meta:
        db_table = "sticker_set_items"
        indexes = [models.Index(fields=["set_id", "position"], name="sticker_items_set_pos")]


class InstalledSet(models.Model):
    """A set in a user's panel (``archived``: moved out of it, still listed)."""

    id = models.BigAutoField(primary_key=True)
    user_id = models.BigIntegerField()
    set_id = models.BigIntegerField()
    kind = models.CharField(max_length=8)
    position = models.IntegerField()  # smallest first
    archived = models.BooleanField(default=False)
    installed_date = models.IntegerField()

    class Meta:
        db_table = "sticker_installed"
        constraints = [models.UniqueConstraint(fields=["user_id", "set_id"], name="sticker_installed_unique")]
        indexes = [models.Index(fields=["user_id", "kind", "position"], name="sticker_installed_order")]


class UserDocument(models.Model):
    """A user's recent stickers ("recent", "attached"), faved stickers ("faved") and
    saved GIFs ("gifs"), newest first by ``date``."""

    id = models.BigAutoField(primary_key=True)
    user_id = models.BigIntegerField()
    list = models.CharField(max_length=8)
    document_id = models.BigIntegerField()
    date = models.IntegerField()

    class Meta:
        db_table = "sticker_user_documents"
        constraints = [
            models.UniqueConstraint(
                fields=["user_id", "list", "document_id"], name="sticker_user_docs_unique"
            )
        ]
        indexes = [models.Index(fields=["user_id", "list", "-date"], name="sticker_user_docs_order")]


class GroupSet(models.Model):
    """The sticker set ("stickers") or custom emoji set ("emojis") a megagroup chose."""

    id = models.BigAutoField(primary_key=True)
    channel_id = models.BigIntegerField()
    kind = models.CharField(max_length=8)
    set_id = models.BigIntegerField()

    class Meta:
        db_table = "sticker_group_sets"
        constraints = [
            models.UniqueConstraint(fields=["channel_id", "kind"], name="sticker_group_sets_unique")
        ]


class AttachedSet(models.Model):
    """A sticker set whose stickers (masks) were put on an uploaded photo ("p") or
    document ("d"): messages.getAttachedStickers lists them."""

    id = models.BigAutoField(primary_key=True)
    media_kind = models.CharField(max_length=1)
    media_id = models.BigIntegerField()
    set_id = models.BigIntegerField()

    class Meta:
        db_table = "sticker_attached_sets"
        constraints = [
            models.UniqueConstraint(
                fields=["media_kind", "media_id", "set_id"], name="sticker_attached_unique"
            )
        ]


class EmojiKeywordsVersion(models.Model):
    """One version of the emoji keywords this server serves (keyword -> the emoji of
    the stickers and custom emoji that carry it), kept so messages.getEmojiKeywordsDifference
    can say exactly what was added and removed since a client's version."""

    version = models.IntegerField(primary_key=True)
    keywords = models.JSONField(default=dict)
    created = models.IntegerField()

    class Meta:
        db_table = "sticker_emoji_keyword_versions"
