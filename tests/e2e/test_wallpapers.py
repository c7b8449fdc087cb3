"""Wallpapers with Telethon: uploaded through the media store, saved and installed (seen
from the user's second session), fetched and downloaded by slug by another user, set
for a private chat for both sides, unsaved and reset."""

from __future__ import annotations

import pytest

from tests.e2e.test_channels import input_user, logged_in, second_session
from tests.e2e.test_media import named, png

pytestmark = pytest.mark.django_db(transaction=True)


async def test_upload_save_install_share_and_set_for_a_chat(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    bob, b, _p, _c = await logged_in(edge_server, "Bob", clients)
    a2 = await second_session(edge_server, phone, code, clients)

    uploaded = await a.upload_file(named(png(600, 900, (200, 40, 40)), "bg.png"))
    wp = await a(functions.account.UploadWallPaperRequest(
        file=uploaded, mime_type="image/png", settings=types.WallPaperSettings(blur=True, intensity=40)
    ))  # fmt: skip
    assert wp.creator and wp.slug and wp.document.mime_type == "image/png" and wp.settings.blur
    listed = await a2(functions.account.GetWallPapersRequest(hash=0))
    assert [w.id for w in listed.wallpapers] == [wp.id]
    assert isinstance(await a2(functions.account.GetWallPapersRequest(hash=listed.hash)),
                      types.account.WallPapersNotModified)  # fmt: skip
    ref = types.InputWallPaper(id=wp.id, access_hash=wp.access_hash)
    assert await a(functions.account.InstallWallPaperRequest(ref, types.WallPaperSettings(motion=True)))
    (installed,) = (await a2(functions.account.GetWallPapersRequest(hash=0))).wallpapers
    assert installed.settings.motion and not installed.settings.blur

    # Bob opens t.me/bg/<slug>: the wallpaper and its file
    seen = await b(functions.account.GetWallPaperRequest(types.InputWallPaperSlug(slug=wp.slug)))
    assert seen.id == wp.id and not seen.creator
    data = await b.download_media(seen.document, bytes)
    assert data and data.startswith(b"\x89PNG")
    with pytest.raises(errors.WallpaperInvalidError):
        await b(functions.account.GetWallPaperRequest(types.InputWallPaperSlug(slug="nope")))

    # Alice sets it for her chat with Bob, for both of them
    result = await a(functions.messages.SetChatWallPaperRequest(
        peer=input_user(alice, bob), wallpaper=ref, settings=types.WallPaperSettings(blur=True), for_both=True
    ))  # fmt: skip
    assert result.updates[0].wallpaper.id == wp.id
    mine = await a(functions.users.GetFullUserRequest(input_user(alice, bob)))
    assert mine.full_user.wallpaper.id == wp.id and mine.full_user.wallpaper_overridden
    theirs = await b(functions.users.GetFullUserRequest(input_user(bob, alice)))
    assert theirs.full_user.wallpaper.id == wp.id and not theirs.full_user.wallpaper_overridden
    assert await b(functions.messages.SetChatWallPaperRequest(peer=input_user(bob, alice), revert=True))
    assert (await b(functions.users.GetFullUserRequest(input_user(bob, alice)))).full_user.wallpaper is None

    assert await a(
        functions.account.SaveWallPaperRequest(ref, unsave=True, settings=types.WallPaperSettings())
    )
    assert (await a2(functions.account.GetWallPapersRequest(hash=0))).wallpapers == []
    assert await b(
        functions.account.SaveWallPaperRequest(ref, unsave=False, settings=types.WallPaperSettings())
    )
    assert await b(functions.account.ResetWallPapersRequest())
    assert (await b(functions.account.GetWallPapersRequest(hash=0))).wallpapers == []
