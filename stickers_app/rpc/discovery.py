"""Finding stickers and custom emoji: by emoji, search, featured sets, custom emoji
documents, the user's own sets, stickers attached to media."""

from __future__ import annotations

from edge_app.registry import rpc
from media_app import actions as media_actions
from message_core import limits
from message_core.context import viewer
from tl import functions, types
from tl.errors import LimitInvalidError, MediaEmptyError, OffsetInvalidError

from .. import attached, discovery, hashing
from .. import tl_convert as stickers_tl

SEARCH_LIMIT_MAX = 100
LANG_CODES_MAX = 10


def _query(*texts: str) -> None:
    if any(len(t or "") > limits.SEARCH_QUERY_MAX for t in texts):
        raise LimitInvalidError()


@rpc(functions.messages.GetStickers)
async def get_stickers(ctx, req: functions.messages.GetStickers):
    me = viewer(ctx)
    _query(req.emoticon)
    h, docs = await discovery.stickers_for_emoji(me, req.emoticon)
    if hashing.unchanged(req.hash, h):
        return types.messages.StickersNotModified()
    return stickers_tl.stickers_to_tl(h, docs)


@rpc(functions.messages.SearchStickerSets, functions.messages.SearchEmojiStickerSets)
async def search_sticker_sets(ctx, req):
    me = viewer(ctx)
    _query(req.q)
    emojis = isinstance(req, functions.messages.SearchEmojiStickerSets)
    h, sets, covers = await discovery.search_sets(
        me, req.q, emojis=emojis, exclude_featured=bool(req.exclude_featured)
    )
    if hashing.unchanged(req.hash, h):
        return types.messages.FoundStickerSetsNotModified()
    return stickers_tl.found_sets_to_tl(h, sets, covers, me)


@rpc(functions.messages.SearchStickers)
async def search_stickers(ctx, req: functions.messages.SearchStickers):
    me = viewer(ctx)
    _query(req.q, req.emoticon)
    if len(req.lang_code) > LANG_CODES_MAX or req.limit < 0:
        raise LimitInvalidError()
    if req.offset < 0:
        raise OffsetInvalidError()
    h, docs, nxt = await discovery.search_stickers(
        me,
        req.q,
        req.emoticon,
        emojis=bool(req.emojis),
        offset=req.offset,
        limit=min(req.limit or 50, SEARCH_LIMIT_MAX),
    )
    if hashing.unchanged(req.hash, h):
        return types.messages.FoundStickersNotModified(next_offset=nxt)
    return stickers_tl.found_stickers_to_tl(h, docs, nxt)


@rpc(functions.messages.GetFeaturedStickers, functions.messages.GetFeaturedEmojiStickers)
async def get_featured_stickers(ctx, req):
    me = viewer(ctx)
    emojis = isinstance(req, functions.messages.GetFeaturedEmojiStickers)
    h, count, sets, covers = await discovery.featured(me, emojis=emojis)
    if hashing.unchanged(req.hash, h):
        return types.messages.FeaturedStickersNotModified(count=count)
    return stickers_tl.featured_to_tl(h, count, sets, covers, me)


@rpc(functions.messages.GetOldFeaturedStickers)
async def get_old_featured_stickers(ctx, req: functions.messages.GetOldFeaturedStickers):
    me = viewer(ctx)
    if req.offset < 0:
        raise OffsetInvalidError()
    if req.limit < 0:
        raise LimitInvalidError()
    h, count, sets, covers = await discovery.featured(
        me, emojis=False, offset=req.offset, limit=min(req.limit, discovery.FEATURED_MAX)
    )
    if hashing.unchanged(req.hash, h):
        return types.messages.FeaturedStickersNotModified(count=count)
    return stickers_tl.featured_to_tl(h, count, sets, covers, me)


@rpc(functions.messages.ReadFeaturedStickers)
async def read_featured_stickers(ctx, req: functions.messages.ReadFeaturedStickers):
    """Featured sets are never listed as unread here, so there is nothing to mark."""
    viewer(ctx)
    if len(req.id) > discovery.FEATURED_MAX:
        raise LimitInvalidError()
    return True


@rpc(functions.messages.GetCustomEmojiDocuments)
async def get_custom_emoji_documents(ctx, req: functions.messages.GetCustomEmojiDocuments):
    viewer(ctx)
    if len(req.document_id) > discovery.CUSTOM_EMOJI_IDS_MAX:
        raise LimitInvalidError()
    return stickers_tl.documents_to_tl(await discovery.custom_emoji_documents(list(req.document_id)))


@rpc(functions.messages.SearchCustomEmoji)
async def search_custom_emoji(ctx, req: functions.messages.SearchCustomEmoji):
    me = viewer(ctx)
    _query(req.emoticon)
    h, ids = await discovery.search_custom_emoji(me, req.emoticon)
    if hashing.unchanged(req.hash, h):
        return types.EmojiListNotModified()
    return types.EmojiList(hash=h, document_id=ids)


@rpc(functions.messages.GetMyStickers)
async def get_my_stickers(ctx, req: functions.messages.GetMyStickers):
    me = viewer(ctx)
    if req.limit < 0:
        raise LimitInvalidError()
    count, sets, covers = await discovery.my_sets(me, req.offset_id, req.limit)
    return stickers_tl.my_stickers_to_tl(count, sets, covers, me)


@rpc(functions.messages.GetAttachedStickers)
async def get_attached_stickers(ctx, req: functions.messages.GetAttachedStickers):
    """The sets of the stickers put on a photo or document when it was uploaded."""
    me = viewer(ctx)
    m = req.media
    if isinstance(m, types.InputStickeredMediaPhoto) and isinstance(m.id, types.InputPhoto):
        await media_actions.get_photo(m.id.id, m.id.access_hash)
        kind, media_id = "p", m.id.id
    elif isinstance(m, types.InputStickeredMediaDocument) and isinstance(m.id, types.InputDocument):
        await media_actions.get_document(m.id.id, m.id.access_hash)
        kind, media_id = "d", m.id.id
    else:
        raise MediaEmptyError()
    sets, covers = await attached.attached_sets(kind, media_id, me)
    return [stickers_tl.covered_to_tl(s, me, covers) for s in sets]
