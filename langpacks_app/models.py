"""Language packs operators load (manage.py loadlangpack) and clients fetch with
langpack.*: one row per language of an app's pack, one per string."""

from django.db import models


class Language(models.Model):
    """A language of one app's pack (``lang_pack``: "tdesktop", "android", "webk"...;
    "" is the pack every app falls back to). ``version`` grows with every load that
    changed a string, so clients fetch only the difference."""

    id = models.BigAutoField(primary_key=True)
    lang_pack = models.CharField(max_length=32, blank=True, default="")
    lang_code = models.CharField(max_length=16)
    name = models.CharField(max_length=64)
    native_name = models.CharField(max_length=64)
    plural_code = models.CharField(max_length=16)
    base_lang_code = models.CharField(max_length=16, blank=True, default="")
    rtl = models.BooleanField(default=False)
    official = models.BooleanField(default=False)
    translations_url = models.CharField(max_length=255, blank=True, default="")
    version = models.IntegerField(default=0)
    strings_count = models.IntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "langpack_languages"
        constraints = [
            models.UniqueConstraint(fields=["lang_pack", "lang_code"], name="langpack_languages_pack_code")
        ]

    def __str__(self) -> str:
        return f"{self.lang_pack or '*'}/{self.lang_code}"


class LangString(models.Model):
    """One key of a language: a plain value, or plural forms; ``deleted`` keys stay so
    getDifference can tell clients to drop them. ``version``: the language version that
    last changed it."""

    id = models.BigAutoField(primary_key=True)
    language = models.ForeignKey(Language, on_delete=models.CASCADE, related_name="strings")
    key = models.CharField(max_length=128)
    value = models.TextField(blank=True, default="")
    # {"zero"?, "one"?, "two"?, "few"?, "many"?, "other"} for pluralized strings
    plural = models.JSONField(null=True, blank=True)
    deleted = models.BooleanField(default=False)
    version = models.IntegerField()

    class Meta:
        db_table = "langpack_strings"
        constraints = [
            models.UniqueConstraint(fields=["language", "key"], name="langpack_strings_language_key")
        ]
        indexes = [models.Index(fields=["language", "version"], name="langpack_strings_changes")]
