"""Which bot a Bot API token logs in as, answered from this process's memory.

Every call of the HTTP Bot API names its token; reading the bot's row for each (an ORM
read in a thread) was most of a sendMessage's cost. A token that checked out is kept
for ``TTL`` seconds; a revoked token, a bot switched off or deleted is forgotten at once
wherever the Bot API runs: ``bots_app.actions`` announces every such change
(``TOKEN_CHANGED``) on the broadcast push channel, which every Bot API process hears. The
TTL bounds what a lost announcement (Redis down at that moment) could leave behind.
Refused tokens are not kept: a bot that just got its token works at once.
"""

from __future__ import annotations

import time

from bots_app import actions as bot_actions
from edge_app import push
from tl.errors import RpcError

from .errors import Unauthorized

TTL = 30.0
CACHE_MAX = 100_000
_bots: dict[str, tuple[int, float]] = {}  # token -> (bot id, when it was checked)


async def bot_of(token: str) -> int:
    """The bot id of ``token``; raises Unauthorized."""
    hit = _bots.get(token)
    now = time.monotonic()
    if hit is not None and now - hit[1] < TTL:
        return hit[0]
    try:
        bot_id = await bot_actions.check_token_async(token)
    except RpcError:
        _bots.pop(token, None)
        raise Unauthorized() from None
    if len(_bots) >= CACHE_MAX:
        _bots.clear()
    _bots[token] = (bot_id, now)
    return bot_id


def forget(bot_id: int) -> None:
    prefix = f"{int(bot_id)}:"
    for token in [t for t in _bots if t.startswith(prefix)]:
        _bots.pop(token, None)


@push.subscriber(bot_actions.TOKEN_CHANGED)
async def _on_token_changed(payload: dict, edge) -> None:
    forget(int(payload["bot_id"]))
