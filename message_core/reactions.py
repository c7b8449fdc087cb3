"""Reactions both chat kinds share: the standard emoji catalog, the per-user and
per-message caps, which reactions a chat allows, and the plain summary a message
carries (``{"counts", "mine", "recent"}``) that ``tl_convert`` renders.

Reactions are emoji strings in one canonical form (variation selector U+FE0F dropped,
as Telegram's own list writes them), so "❤️" and "❤" are the same reaction."""

from __future__ import annotations

import zlib

from tl.errors import PremiumAccountRequiredError, ReactionInvalidError, ReactionsTooManyError

# The standard reactions, in the order Telegram lists them.
STANDARD = [
    "👍",
    "❤",
    "🔥",
    "🥰",
    "👏",
    "😁",
    "🤔",
    "🤯",
    "😱",
    "🤬",
    "😢",
    "🎉",
    "🤩",
    "🤮",
    "💩",
    "🙏",
    "👌",
    "🕊",
    "🤡",
    "🥱",
    "🥴",
    "😍",
    "🐳",
    "❤\u200d🔥",
    "🌚",
    "🌭",
    "💯",
    "🤣",
    "⚡",
    "🍌",
    "🏆",
    "💔",
    "🤨",
    "😐",
    "🍓",
    "🍾",
    "💋",
    "🖕",
    "😈",
    "😴",
    "😭",
    "🤓",
    "👻",
    "👨\u200d💻",
    "👀",
    "🎃",
    "🙈",
    "😇",
    "😨",
    "🤝",
    "✍",
    "🤗",
    "🫡",
    "🎅",
    "🎄",
    "☃",
    "💅",
    "🤪",
    "🗿",
    "🆒",
    "💘",
    "🙉",
    "🦄",
    "😘",
    "💊",
    "🙊",
    "😎",
    "👾",
    "🤷\u200d♂",
    "🤷",
    "🤷\u200d♀",
    "😡",
]
STANDARD_SET = frozenset(STANDARD)

# appConfig defaults of a non-Premium account (no account is Premium here).
USER_MAX = 1  # reactions_user_max_default
USER_MAX_PREMIUM = 3  # reactions_user_max_premium
UNIQ_MAX = 11  # reactions_uniq_max: distinct reactions on one message
RECENT_SHOWN = 3  # recent reactors embedded in a message of a group / private chat
RECENT_LIST_MAX = 100  # the account's recent-reactions list
TOP_LIST_MAX = 100
LIST_PAGE_MAX = 100  # messages.getMessageReactionsList
TAG_TITLE_MAX = 12
CHAT_SOME_MAX = len(STANDARD)  # chatReactionsSome vector cap


def canonical(emoticon: str) -> str:
    return emoticon.replace("\ufe0f", "")


def catalog_hash() -> int:
    """A stable int32 of the catalog (messages.getAvailableReactions hash)."""
    return zlib.crc32(" ".join(STANDARD).encode()) & 0x7FFFFFFF


def list_hash(items: list[str]) -> int:
    """A stable hash of an ordered reaction list (recent / top / tags); 0 = empty."""
    if not items:
        return 0
    return zlib.crc32("\n".join(items).encode()) or 1


def normalize_policy(kind: str, reactions: list[str] | None = None) -> dict | None:
    """A chat's stored policy: None (all, the default), or none / some(list)."""
    if kind == "all":
        return None
    if kind == "none":
        return {"kind": "none", "reactions": []}
    some = []
    for r in reactions or ():
        r = canonical(r)
        if r not in STANDARD_SET:
            raise ReactionInvalidError()
        if r not in some:
            some.append(r)
    if len(some) > CHAT_SOME_MAX:
        raise ReactionsTooManyError()
    return {"kind": "some", "reactions": some}


def allowed(policy: dict | None) -> frozenset[str]:
    if policy is None or policy.get("kind") == "all":
        return STANDARD_SET
    return frozenset(policy.get("reactions") or ())


def check_choice(reactions: list[str], policy: dict | None) -> list[str]:
    """The user's new reactions on one message, canonical and deduplicated, or the
    Telegram error: a reaction the chat does not allow is REACTION_INVALID; more than
    one is a Premium feature; more than Premium's cap is REACTIONS_TOO_MANY."""
    chosen: list[str] = []
    ok = allowed(policy)
    for r in reactions:
        r = canonical(r)
        if r not in ok:
            raise ReactionInvalidError()
        if r not in chosen:
            chosen.append(r)
    if len(chosen) > USER_MAX_PREMIUM:
        raise ReactionsTooManyError()
    if len(chosen) > USER_MAX:
        raise PremiumAccountRequiredError()
    return chosen


def check_uniq(counts: dict[str, int], chosen: list[str], limit: int) -> None:
    """A message shows at most ``limit`` distinct reactions: a new one beyond that
    is refused (reacting with one already shown is always fine)."""
    cap = limit if 0 < limit <= UNIQ_MAX else UNIQ_MAX
    present = {r for r, n in counts.items() if n > 0}
    if len(present | set(chosen)) > cap and not set(chosen) <= present:
        raise ReactionsTooManyError()


def apply_counts(counts: dict | None, removed: list[str], added: list[str]) -> dict | None:
    out = dict(counts or {})
    for r in removed:
        out[r] = out.get(r, 0) - 1
        if out[r] <= 0:
            del out[r]
    for r in added:
        out[r] = out.get(r, 0) + 1
    return out or None


def summary(
    counts: dict | None, mine: list[str] | None = None, recent: list[dict] | None = None
) -> dict | None:
    """What a message's ``reactions`` holds for one viewer (None: no reactions).
    ``recent``: [{"user_id", "reaction", "date", "big", "unread"}], newest first."""
    if not counts:
        return None
    return {"counts": dict(counts), "mine": list(mine or ()), "recent": list(recent or ())}
