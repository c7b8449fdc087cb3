"""A user's sticker panels through the domain: installing past the cap archives the
bottom sets, reordering and toggling, recent / faved / GIF lists with their caps and
errors, the panel hash moving when a set is edited, a deleted set leaving every list."""

from __future__ import annotations

import io
import secrets

import pytest
from asgiref.sync import sync_to_async
from PIL import Image

from accounts_app.actions import do_create_user
from accounts_app.models import UserUpdateEvent
from media_app.models import Document
from stickers_app import events, groups, library, sets
from stickers_app.catalog import SetRef
from stickers_app.models import InstalledSet, UserDocument
from tl.errors import GifIdInvalidError, StickerIdInvalidError, StickersetInvalidError


def webp(color=(1, 2, 3, 255)) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", (512, 512), color).save(out, "WEBP")
    return out.getvalue()


@sync_to_async
def make_set(owner_id: int = 0, n: int = 1, kind: str = "stickers"):
    name = f"s_{secrets.token_hex(4)}"
    stickers = [
        sets.NewSticker(sets.RawFile(webp((i, 0, 0, 255)), "image/webp"), "😀🐱"[i % 2]) for i in range(n)
    ]
    row, _ = sets.create_set_sync(owner_id, name.title(), name, stickers, kind=kind, install=bool(owner_id))
    return SetRef(id=row.id, access_hash=row.access_hash), row


@pytest.fixture
async def user(chan):
    return (await sync_to_async(do_create_user)(f"9996619{secrets.randbelow(10**4):04d}", "Uma")).id


async def kinds_logged(user_id: int) -> list[str]:
    return [e.type async for e in UserUpdateEvent.objects.filter(user_id=user_id).order_by("pts")]


async def test_installing_past_the_cap_archives_the_bottom_sets(user, monkeypatch):
    monkeypatch.setattr(library, "INSTALLED_MAX", 2)
    refs = [(await make_set())[0] for _ in range(3)]
    for ref in refs[:2]:
        assert await library.do_install(user, ref) == ([], {})
    moved, covers = await library.do_install(user, refs[2])
    assert [s["id"] for s in moved] == [refs[0].id] and refs[0].id in covers
    _, installed = await library.installed_sets(user, "stickers")
    assert [s["id"] for s in installed] == [refs[2].id, refs[1].id]
    count, archived, _ = await library.archived_sets(user, "stickers", 0, 10)
    assert count == 1 and archived[0]["installed"]["archived"]
    # Unarchiving brings it back on top, archiving another in its place.
    await library.do_toggle(user, [refs[0]], uninstall=False, archive=False, unarchive=True)
    _, installed = await library.installed_sets(user, "stickers")
    assert [s["id"] for s in installed] == [refs[0].id, refs[2].id]
    assert (await kinds_logged(user)).count(events.NEW_SET) == 3


async def test_reorder_and_uninstall(user):
    a, b, c = [(await make_set())[0] for _ in range(3)]
    for ref in (a, b, c):
        await library.do_install(user, ref)
    assert await library.installed_order(user, "stickers") == [c.id, b.id, a.id]
    assert await library.do_reorder(user, "stickers", [a.id, 12345, a.id]) == [a.id, c.id, b.id]
    await library.do_uninstall(user, c)
    assert await library.installed_order(user, "stickers") == [a.id, b.id]
    with pytest.raises(StickersetInvalidError):
        await library.do_uninstall(user, c)
    with pytest.raises(StickersetInvalidError):
        await library.do_install(user, SetRef(id=a.id, access_hash=a.access_hash + 1))
    assert (await kinds_logged(user))[-2:] == [events.ORDER, events.SETS]


async def test_panel_hash_moves_when_an_installed_set_is_edited(user):
    owner = (await sync_to_async(do_create_user)(f"9996618{secrets.randbelow(10**4):04d}", "Owen")).id
    ref, _ = await make_set(owner)
    await library.do_install(user, ref)
    before, _ = await library.installed_sets(user, "stickers")
    assert before == (await library.installed_sets(user, "stickers"))[0]
    await sets.do_rename_set(owner, ref, "New title")
    after, listed = await library.installed_sets(user, "stickers")
    assert after != before and listed[0]["title"] == "New title"


async def test_faved_recent_and_gifs_lists(user, monkeypatch):
    _, row = await make_set(n=6)
    docs = [d async for d in Document.objects.filter(owner_id=0, attributes__contains=[{"set_id": row.id}])]
    assert len(docs) == 6
    for d in docs:
        await library.do_save(user, "faved", d.id, d.access_hash)
    h, faved, _, emoji = await library.user_list(user, "faved")
    assert len(faved) == library.FAVED_MAX and docs[0].id not in [f["id"] for f in faved]
    assert faved[0]["id"] == docs[-1].id and emoji[docs[-1].id] in ("😀", "🐱")
    await library.do_save(user, "faved", docs[-1].id, docs[-1].access_hash, remove=True)
    assert (await library.user_list(user, "faved"))[0] != h
    with pytest.raises(StickerIdInvalidError):
        await library.do_save(user, "faved", docs[0].id, docs[0].access_hash + 1)
    with pytest.raises(GifIdInvalidError):
        await library.do_save(user, "gifs", docs[0].id, docs[0].access_hash)  # a sticker is no GIF
    await library.do_save(user, "recent", docs[0].id, docs[0].access_hash)
    await library.do_clear(user, "recent")
    assert (await library.user_list(user, "recent"))[1] == []
    logged = await kinds_logged(user)
    assert logged.count(events.FAVED) == 7 and logged.count(events.RECENT) == 2


async def test_a_deleted_set_leaves_panels_lists_and_groups(user):
    owner = (await sync_to_async(do_create_user)(f"9996617{secrets.randbelow(10**4):04d}", "Oda")).id
    ref, row = await make_set(owner, n=2)
    await library.do_install(user, ref)
    doc = await Document.objects.filter(owner_id=owner).afirst()
    await library.do_save(user, "faved", doc.id, doc.access_hash)
    assert await groups.do_set_group_set(777, "stickers", ref) == (
        None,
        {"id": ref.id, "access_hash": ref.access_hash},
    )
    assert await groups.do_set_group_set(777, "stickers", ref) is None  # unchanged
    with pytest.raises(StickersetInvalidError):
        await groups.do_set_group_set(777, "emojis", ref)
    with pytest.raises(StickersetInvalidError):
        await sets.do_delete_set(user, ref)  # not hers
    await sets.do_delete_set(owner, ref)
    assert not await InstalledSet.objects.filter(set_id=row.id).aexists()
    assert not await UserDocument.objects.filter(user_id=user).aexists()
    assert await groups.group_sets(777, user) == {}
    assert (await kinds_logged(user))[-2:] == [events.SETS, events.FAVED]  # her panel and faved list changed
    assert await Document.objects.filter(id=doc.id).aexists()  # messages keep their stickers


async def test_sending_a_sticker_moves_its_set_up_and_into_recent(user):
    from media_app.actions import document_dict
    from stickers_app.models import SetSticker

    a, _ = await make_set()
    b, _ = await make_set()
    await library.do_install(user, a)
    await library.do_install(user, b)
    assert await library.installed_order(user, "stickers") == [b.id, a.id]
    item = await SetSticker.objects.aget(set_id=a.id)
    doc = document_dict(await Document.objects.aget(id=item.document_id))
    await library.do_note_sent(user, doc, move_to_top=True)
    assert await library.installed_order(user, "stickers") == [a.id, b.id]
    await library.do_note_sent(user, doc, move_to_top=True)  # already on top: nothing to tell
    assert [d["id"] for d in (await library.user_list(user, "recent"))[1]] == [doc["id"]]
    assert (await SetSticker.objects.aget(id=item.id)).uses == 2
    assert (await kinds_logged(user)).count(events.MOVE_TOP) == 1
    plain = {**doc, "attributes": [{"_": "filename", "file_name": "x.webp"}]}
    await library.do_note_sent(user, plain)  # not a sticker: not counted
    assert (await SetSticker.objects.aget(id=item.id)).uses == 2
