"""The emoji panel's start-up calls answered from this server's sets: emoji keywords
(their languages, the list, its difference), emoji categories and default statuses."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core.context import viewer
from tl import functions, types
from tl.errors import LimitInvalidError

from .. import emoji_groups, hashing, keywords

LANG_CODES_ASKED_MAX = 100


def _lang(code: str) -> str:
    # Telegram Desktop drops an answer whose lang_code is not the one it asked for.
    return code or "en"


def _difference_to_tl(lang_code: str, from_version: int, version: int, added: list, removed: list):
    words = [types.EmojiKeyword(keyword=k, emoticons=e) for k, e in added]
    words += [types.EmojiKeywordDeleted(keyword=k, emoticons=e) for k, e in removed]
    return types.EmojiKeywordsDifference(
        lang_code=_lang(lang_code), from_version=from_version, version=version, keywords=words
    )


@rpc(functions.messages.GetEmojiKeywordsLanguages)
async def get_emoji_keywords_languages(ctx, req: functions.messages.GetEmojiKeywordsLanguages):
    viewer(ctx)
    if len(req.lang_codes) > LANG_CODES_ASKED_MAX:
        raise LimitInvalidError()
    return [types.EmojiLanguage(lang_code=c) for c in await keywords.languages(list(req.lang_codes))]


@rpc(functions.messages.GetEmojiKeywords)
async def get_emoji_keywords(ctx, req: functions.messages.GetEmojiKeywords):
    viewer(ctx)
    version, added, removed = await keywords.difference(0)
    return _difference_to_tl(req.lang_code, 0, version, added, removed)


@rpc(functions.messages.GetEmojiKeywordsDifference)
async def get_emoji_keywords_difference(ctx, req: functions.messages.GetEmojiKeywordsDifference):
    viewer(ctx)
    version, added, removed = await keywords.difference(req.from_version)
    return _difference_to_tl(req.lang_code, req.from_version, version, added, removed)


@rpc(
    functions.messages.GetEmojiGroups,
    functions.messages.GetEmojiStatusGroups,
    functions.messages.GetEmojiProfilePhotoGroups,
    functions.messages.GetEmojiStickerGroups,
)
async def get_emoji_groups(ctx, req):
    viewer(ctx)
    h, found = await emoji_groups.groups()
    if req.hash and req.hash == h:
        return types.messages.EmojiGroupsNotModified()
    return types.messages.EmojiGroups(
        hash=h,
        groups=[
            types.EmojiGroup(title=g["title"], icon_emoji_id=g["icon_emoji_id"], emoticons=g["emoticons"])
            for g in found
        ],
    )


@rpc(functions.account.GetDefaultEmojiStatuses, functions.account.GetChannelDefaultEmojiStatuses)
async def get_default_emoji_statuses(ctx, req):
    viewer(ctx)
    special = (
        "emoji_channel_default_statuses"
        if isinstance(req, functions.account.GetChannelDefaultEmojiStatuses)
        else "emoji_default_statuses"
    )
    h, ids = await emoji_groups.default_statuses(special)
    if hashing.unchanged(req.hash, h):
        return types.account.EmojiStatusesNotModified()
    return types.account.EmojiStatuses(hash=h, statuses=[types.EmojiStatus(document_id=i) for i in ids])
