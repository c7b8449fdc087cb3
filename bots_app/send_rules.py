"""What bots may not send (installed into ``message_core.send_hooks`` at start-up):
a bot cannot write first to a user who never wrote to it (PEER_ID_INVALID, as on
Telegram, where the bot cannot even address such a user), nor to another bot
(USER_IS_BOT), and its sends count against ``bots_app.flood``.

Whether a user is a bot never changes for a user id, so the answer is cached per
process: a person's send costs one dictionary probe after the first.
"""

from __future__ import annotations

import time

from django.conf import settings

from accounts_app.models import User
from edge_app.orm_threads import in_thread
from private_app.models import MessageBox
from tl.errors import PeerIdInvalidError, UserIsBotError

from . import flood

CACHE_MAX = 100_000
_is_bot: dict[int, bool] = {}


@in_thread
def _read_bots(user_ids: list[int]) -> set[int]:
    return set(User.objects.filter(id__in=user_ids, bot__isnull=False).values_list("id", flat=True))


def known_bot(user_id: int) -> bool | None:
    """Whether ``user_id`` is a bot, if this process already knows (no await)."""
    return _is_bot.get(user_id)


async def are_bots(*user_ids: int) -> dict[int, bool]:
    missing = [u for u in user_ids if u not in _is_bot]
    if missing:
        bots = await _read_bots(missing)
        if len(_is_bot) > CACHE_MAX:
            _is_bot.clear()
        for u in missing:
            _is_bot[u] = u in bots
    return {u: _is_bot.get(u, False) for u in user_ids}


@in_thread
def _wrote_to(bot_id: int, user_id: int) -> bool:
    return MessageBox.objects.filter(owner_id=bot_id, peer_id=user_id, out=False).exists()


# (bot, user) pairs known to have talked: a bot answering a user sends many messages,
# and the answer once yes stays yes for this check (a cleared history does not make
# the user a stranger to the bot again). Kept for WROTE_TTL; a "no" is never kept.
WROTE_TTL = 600.0
_wrote: dict[tuple[int, int], float] = {}


async def user_wrote_to(bot_id: int, user_id: int) -> bool:
    """Whether ``user_id`` ever sent ``bot_id`` a message (started it)."""
    now = time.monotonic()
    seen = _wrote.get((bot_id, user_id))
    if seen is not None and now - seen < WROTE_TTL:
        return True
    if not await _wrote_to(bot_id, user_id):
        return False
    if len(_wrote) > CACHE_MAX:
        _wrote.clear()
    _wrote[(bot_id, user_id)] = now
    return True


async def guard(sender_id: int, kind: str, peer_id: int, count: int) -> None:
    if kind == "user":
        bots = await are_bots(sender_id, peer_id)
        if not bots[sender_id]:
            return
        if peer_id != sender_id:
            if bots[peer_id]:
                raise UserIsBotError()
            if not await user_wrote_to(sender_id, peer_id):
                raise PeerIdInvalidError()
        await flood.check(sender_id, None, count)
        return
    if (await are_bots(sender_id))[sender_id]:
        await flood.check(sender_id, peer_id, count)


def bot_difference_limit() -> int:
    return int(getattr(settings, "BOT_CHANNEL_DIFFERENCE_LIMIT", 1000))


async def difference_cap(viewer_id: int, requested: int) -> int | None:
    """Bots may take larger getChannelDifference pages (Telethon bots ask 100000), so a
    bot that was offline for a while catches up instead of being told "too long"."""
    known = known_bot(viewer_id)
    if known is False or (known is None and not (await are_bots(viewer_id))[viewer_id]):
        return None
    if requested <= 0:
        return None
    return max(1, min(requested, bot_difference_limit()))
