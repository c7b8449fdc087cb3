"""The sticker answers and updates as every supported layer's clients receive them,
and the account-log events rendered for the owner's other devices."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from stickers_app import events, update_kinds
from stickers_app import tl_convert as stickers_tl
from tests.accounts_app.test_layers import functions_of
from tl import layers, types
from tl.translate import primary_classes

DOC = {
    "id": 11, "access_hash": 12, "file_reference": "", "date": 1, "mime_type": "image/webp", "size": 100,
    "attributes": [
        {"_": "image_size", "w": 512, "h": 512},
        {"_": "sticker", "alt": "😀", "set_id": 5, "set_access_hash": 6, "mask": False, "mask_coords": None},
        {"_": "filename", "file_name": "sticker.webp"},
    ],
    "thumbs": [{"type": "m", "w": 320, "h": 320, "size": 50}], "stripped": "",
}  # fmt: skip
EMOJI_DOC = {
    **DOC,
    "id": 13,
    "attributes": [{"_": "custom_emoji", "alt": "⭐", "set_id": 7, "set_access_hash": 8}],
}
SET = {
    "id": 5, "access_hash": 6, "owner_id": 1, "title": "Cats", "short_name": "cats", "kind": "stickers",
    "text_color": False, "hash": 77, "created": 1, "thumb_document_id": 99, "thumb_version": 2, "featured_at": 0,
    "count": 1, "installed": {"date": 3, "archived": False}, "official": False,
    "thumb": {"mime_type": "application/x-tgsticker", "size": 900},
}  # fmt: skip
FULL = {"set": SET, "items": [{"document": DOC, "emoji": "😀🐱", "keywords": ["cat"], "mask_coords": None}]}


def answers() -> dict[str, object]:
    covers = {5: DOC}
    return {
        "messages.getStickerSet": stickers_tl.messages_sticker_set_to_tl(FULL, 1),
        "messages.getAllStickers": stickers_tl.all_stickers_to_tl(3, [SET], 1),
        "messages.getFeaturedStickers": stickers_tl.featured_to_tl(3, 1, [SET], covers, 1),
        "messages.searchStickerSets": stickers_tl.found_sets_to_tl(3, [SET], covers, 1),
        "messages.getArchivedStickers": stickers_tl.archived_to_tl(1, [SET], {}, 1),
        "messages.installStickerSet": stickers_tl.install_result_to_tl([SET], covers, 1),
        "messages.getRecentStickers": stickers_tl.recent_to_tl(3, [DOC], [4], {11: "😀"}),
        "messages.getFavedStickers": stickers_tl.faved_to_tl(3, [DOC], {11: "😀"}),
        "messages.getSavedGifs": stickers_tl.gifs_to_tl(3, [DOC]),
        "messages.getStickers": stickers_tl.stickers_to_tl(3, [DOC]),
        "messages.searchStickers": stickers_tl.found_stickers_to_tl(3, [DOC], 10),
        "messages.getMyStickers": stickers_tl.my_stickers_to_tl(1, [SET], covers, 1),
        "stickers.createStickerSet": stickers_tl.messages_sticker_set_to_tl(
            {"set": {**SET, "kind": "emojis", "thumb_document_id": 13}, "items": [{**FULL["items"][0], "document": EMOJI_DOC}]}, 1
        ),
    }  # fmt: skip


def test_set_shape():
    answer = answers()["messages.getStickerSet"]
    assert [(p.emoticon, p.documents) for p in answer.packs] == [("😀", [11]), ("🐱", [11])]
    s = answer.set
    assert (s.creator, s.installed_date, s.count, s.hash) == (True, 3, 1, 77)
    assert s.thumbs[0].type == "a" and s.thumb_version == 2 and s.thumb_document_id is None
    sticker = answer.documents[0].attributes[1]
    assert isinstance(sticker, types.DocumentAttributeSticker) and sticker.stickerset.id == 5
    emoji_set = answers()["stickers.createStickerSet"]
    assert emoji_set.set.emojis and emoji_set.set.thumb_document_id == 13 and not emoji_set.set.thumbs
    assert isinstance(emoji_set.documents[0].attributes[0], types.DocumentAttributeCustomEmoji)


@pytest.mark.parametrize("layer", layers.SUPPORTED)
def test_answers_encode_for_each_layer(layer):
    known = functions_of(layer)
    asked = [(name, answer) for name, answer in answers().items() if name in known]
    assert asked
    for name, answer in asked:
        translated = layers.result_for_layer(answer, primary_classes()[name], layer)
        assert layers.encode(translated, layer), name


@pytest.mark.parametrize(
    ("kind", "payload", "expected"),
    [
        (events.SETS, {"kind": "masks"}, types.UpdateStickerSets(masks=True)),
        (
            events.ORDER,
            {"kind": "emojis", "order": [3, 2]},
            types.UpdateStickerSetsOrder(order=[3, 2], emojis=True),
        ),
        (events.NEW_SET, {"kind": "stickers", "set_id": 404}, types.UpdateStickerSets()),  # deleted since
        (events.RECENT, {"list": "recent"}, types.UpdateRecentStickers()),
        (events.FAVED, {"list": "faved"}, types.UpdateFavedStickers()),
        (events.GIFS, {"list": "gifs"}, types.UpdateSavedGifs()),
        (events.MOVE_TOP, {"kind": "stickers", "set_id": 9}, types.UpdateMoveStickerSetToTop(stickerset=9)),
    ],
)
@pytest.mark.django_db
async def test_logged_events_render_for_other_devices(kind, payload, expected):
    rendered = await update_kinds._render(SimpleNamespace(type=kind, payload=payload), 1)
    assert [repr(u) for u in rendered.updates] == [repr(expected)]
    for layer in layers.SUPPORTED:
        assert layers.encode(layers.result_for_layer(rendered.updates[0], None, layer), layer)
