"""Privacy mode, as on Telegram: a bot in a group with privacy on (the default) sees
only the messages meant for it: commands (``/cmd``, or ``/cmd@thisbot``), messages
mentioning it, replies to it, service messages and its own; with privacy off, or as an
admin, it sees everything. Installed as a channels_app viewer filter (pushes and
getChannelDifference); broadcast channels are not filtered (bots there are admins).
"""

from __future__ import annotations

import time

from accounts_app.models import User
from channels_app.rights import is_admin
from edge_app.orm_threads import in_thread

from . import send_rules

SETTINGS_TTL = 5.0  # seconds a bot's privacy flag is cached per process
# Viewers whose bot flag one read asks for.
PREFETCH_BATCH = 5000
_settings: dict[int, tuple[float, bool, str]] = {}


def sees(bot_id: int, username: str, message: dict, *, privacy: bool, admin: bool) -> bool:
    """Whether a bot sees a group ``message`` (a channel message snapshot)."""
    if not privacy or admin or message.get("action"):
        return True
    if message.get("sender_user_id") == bot_id or message.get("reply_to_user_id") == bot_id:
        return True
    text = message.get("message") or ""
    entities = message.get("entities") or []
    name = username.lower()
    for e in entities:
        kind = e.get("type")
        if kind == "mentionName" and e.get("user_id") == bot_id:
            return True
        if kind == "mention":
            part = text[e.get("offset", 0) : e.get("offset", 0) + e.get("length", 0)].lower()
            if kind == "mention" and part == f"@{name}":
                return True
    if text.startswith("/") and len(text) > 1:
        # A command: for every bot unless addressed to another one (/cmd@otherbot).
        _, at, target = text.split()[0].partition("@")
        return not at or target.lower() == name
    return False


@in_thread
def _read(bot_id: int) -> tuple[bool, str]:
    row = User.objects.filter(id=bot_id).values_list("bot", "username").first()
    snap, username = row if row else (None, "")
    return not bool((snap or {}).get("history")), username or ""


async def _privacy_of(bot_id: int) -> tuple[bool, str]:
    now = time.monotonic()
    hit = _settings.get(bot_id)
    if hit is None or hit[0] < now:
        privacy, username = await _read(bot_id)
        if len(_settings) > 10_000:
            _settings.clear()
        hit = _settings[bot_id] = (now + SETTINGS_TTL, privacy, username)
    return hit[1], hit[2]


async def prefetch(viewer_ids: list[int]) -> None:
    """Which of a fan-out's viewers are bots, in one read: a listener fresh from a
    start knows none of them, and asking per viewer took a thread hop each (4.4 s for
    2,500 viewers of one post in bench/bench_scaleout.py bigpost)."""
    unknown = [u for u in viewer_ids if send_rules.known_bot(u) is None]
    for at in range(0, len(unknown), PREFETCH_BATCH):
        await send_rules.are_bots(*unknown[at : at + PREFETCH_BATCH])


async def hides(viewer_id: int, member: dict | None, message: dict) -> bool:
    # Called per member per message on the fan-out path: people cost one dict probe.
    known = send_rules.known_bot(viewer_id)
    if known is False or (known is None and not (await send_rules.are_bots(viewer_id))[viewer_id]):
        return False
    if message.get("post"):
        return False
    privacy, username = await _privacy_of(viewer_id)
    return not sees(viewer_id, username, message, privacy=privacy, admin=bool(member) and is_admin(member))
