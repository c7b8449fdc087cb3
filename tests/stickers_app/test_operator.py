"""What an operator does with sticker sets: import one from a folder (the same file
rules as an upload; one bad file imports nothing), list sets with owner and use in the
console, feature one (it shows in trending), remove one (installers are told)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from PIL import Image

from accounts_app.models import User, UserUpdateEvent
from stickers_app import discovery, events
from stickers_app.models import InstalledSet, SetSticker, StickerSet
from tests.console_app.conftest import run
from tests.console_app.test_moderation import act

LIST = "/admin/stickers_app/stickerset/"


def webp(w: int, h: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", (w, h), (9, 9, 9, 255)).save(out, "WEBP")
    return out.getvalue()


def folder(tmp_path, files: dict[str, bytes], meta: dict | None = None):
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    if meta is not None:
        (tmp_path / "emoji.json").write_text(json.dumps(meta), encoding="utf-8")
    return tmp_path


def test_import_a_folder_of_custom_emoji(transactional_db, tmp_path):
    owner = User.objects.create(phone="15550001001", first_name="Olga")
    path = folder(tmp_path, {"a.webp": webp(100, 100), "⭐.webp": webp(100, 100), "notes.txt": b"x"},
                  {"a.webp": {"emoji": "🅰️", "keywords": ["letter"]}})  # fmt: skip
    out = io.StringIO()
    call_command("import_sticker_set", str(path), "--title", "ACME", "--short-name", "acme_emoji", "--kind", "emojis",
                 "--owner-phone", owner.phone, "--feature", stdout=out)  # fmt: skip
    assert "created set acme_emoji" in out.getvalue()
    row = StickerSet.objects.get(short_name="acme_emoji")
    assert (row.owner_id, row.kind, row.featured_at > 0) == (owner.id, "emojis", True)
    items = list(SetSticker.objects.filter(set_id=row.id).order_by("position"))
    assert [(i.emoji, i.keywords) for i in items] == [("🅰️", ["letter"]), ("⭐", [])]
    assert InstalledSet.objects.filter(user_id=owner.id, set_id=row.id).exists()
    _, count, sets, _ = run(discovery.featured, owner.id, emojis=True)
    assert count == 1 and sets[0]["id"] == row.id


def test_one_bad_file_imports_nothing(transactional_db, tmp_path):
    path = folder(tmp_path, {"a.webp": webp(512, 512), "b.webp": webp(200, 200)})
    with pytest.raises(CommandError, match="STICKER_PNG_DIMENSIONS"):
        call_command("import_sticker_set", str(path), "--title", "Bad", "--short-name", "bad_import")
    assert not StickerSet.objects.filter(short_name_lower="bad_import").exists()
    with pytest.raises(CommandError, match="not a folder"):
        call_command("import_sticker_set", str(tmp_path / "none"), "--title", "x", "--short-name", "x")


def test_console_lists_features_and_removes_sets(operator_client, tmp_path):
    owner = User.objects.create(phone="15550001002", first_name="Oskar")
    fan = User.objects.create(phone="15550001003", first_name="Fay")
    path = folder(tmp_path, {"a.webp": webp(512, 512), "b.webp": webp(512, 400)})
    call_command("import_sticker_set", str(path), "--title", "Office", "--short-name", "office_set",
                 "--owner-phone", owner.phone)  # fmt: skip
    row = StickerSet.objects.get(short_name="office_set")
    InstalledSet.objects.create(user_id=fan.id, set_id=row.id, kind="stickers", position=0, installed_date=1)
    SetSticker.objects.filter(set_id=row.id).update(uses=3)
    page = operator_client.get(LIST).content.decode()
    assert "Office" in page and "office_set" in page and f"Oskar ({owner.id})" in page
    assert ">6<" in page  # messages sent with its two stickers
    act(operator_client, LIST, "feature", [str(row.id)])
    row.refresh_from_db()
    assert row.featured_at > 0
    response = act(operator_client, LIST, "remove_sets", [str(row.id)])
    assert "1 set(s) removed." in response.content.decode()
    assert not StickerSet.objects.filter(id=row.id).exists()
    assert not InstalledSet.objects.filter(set_id=row.id).exists()
    # Both installers' clients are told their panel changed.
    for user in (owner, fan):
        assert UserUpdateEvent.objects.filter(user_id=user.id, type=events.SETS).exists()


def test_moderators_cannot_remove_sets(moderator_client):
    assert moderator_client.get(LIST).status_code == 403


def test_an_imported_set_answers_for_a_built_in_one(transactional_db, tmp_path):
    from stickers_app import catalog

    empty = catalog.special_full(catalog.SetRef(special="dice", emoticon="🎲"), 1)
    assert empty["items"] == [] and empty["set"]["count"] == 0
    path = folder(tmp_path, {"1.webp": webp(512, 512), "2.webp": webp(512, 512)})
    call_command("import_sticker_set", str(path), "--title", "Dice", "--short-name", "our_dice",
                 "--emoji", "🎲", "--special", "dice:🎲", stdout=io.StringIO())  # fmt: skip
    full = catalog.special_full(catalog.SetRef(special="dice", emoticon="🎲"), 1)
    assert full["set"]["short_name"] == "our_dice" and len(full["items"]) == 2
    assert catalog.special_full(catalog.SetRef(special="dice", emoticon="🎯"), 1)["items"] == []
    with pytest.raises(CommandError, match="unknown built-in set"):
        call_command(
            "import_sticker_set", str(path), "--title", "X", "--short-name", "x_set", "--special", "nope"
        )
