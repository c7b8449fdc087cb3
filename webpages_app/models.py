from django.db import models


class WebPage(models.Model):
    """A link's preview, one per URL (the cache): ``pending`` while it is fetched,
    ``ready`` with ``data`` (title, description, site_name, type, display_url, photo: a
    public photo of media_app, large_media), ``empty`` when the URL gives no preview
    (refused, unreachable, not a page). ``fetched``: when it was (re)fetched; a page is
    fetched again after LINK_PREVIEW_TTL. ``claimed_until``: a worker is fetching it."""

    id = models.BigIntegerField(primary_key=True)
    url = models.TextField(unique=True)
    state = models.CharField(max_length=8)
    data = models.JSONField(default=dict, blank=True)
    date = models.IntegerField()
    fetched = models.IntegerField(default=0)
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "webpages"

    def __str__(self) -> str:
        return f"{self.url} ({self.state})"


class WebPageRef(models.Model):
    """A message sent with a page still pending: its media is filled in, and its viewers
    told (updateWebPage / updateChannelWebPage), when the page is ready. ``peer_kind``
    "c": ``chat_id`` a channel, ``msg_id`` its message; "p": ``msg_id`` the private
    content row, ``chat_id`` the sender and ``peer_id`` the recipient."""

    webpage_id = models.BigIntegerField()
    peer_kind = models.CharField(max_length=1)
    chat_id = models.BigIntegerField()
    peer_id = models.BigIntegerField(default=0)
    msg_id = models.BigIntegerField()

    class Meta:
        db_table = "webpage_refs"
        indexes = [models.Index(fields=["webpage_id"], name="webpage_refs_page")]

    def __str__(self) -> str:
        return f"{self.peer_kind}{self.chat_id}/{self.msg_id} -> {self.webpage_id}"
