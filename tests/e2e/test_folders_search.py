"""Chat folders applied by the server and media search across chats, with unmodified
clients: a folder of groups and a private chat saved from Telethon is seen by the same
user's Kurigram session, whose getDialogs(folder_id) lists exactly the folder's chats,
the folder's pin first, page by page; Telethon's dialog iterator agrees. A photo filter
in the main search box finds the photos sent into two groups and a private chat, paged."""

from __future__ import annotations

import io

import pytest

from accounts_app.access import user_access_hash

pytestmark = pytest.mark.django_db(transaction=True)


def _png(w: int, h: int) -> io.BytesIO:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (w, h), (w % 256, 100, h % 256)).save(out, "PNG")
    out.seek(0)
    out.name = f"p{w}x{h}.png"
    return out


async def _kurigram_as(kurigram_client, phone: str):
    kuri = await kurigram_client()
    sent = await kuri.send_code(phone)
    await kuri.sign_in(phone, sent.phone_code_hash, phone[5] * 5)
    return kuri


def _key(peer) -> tuple[str, int]:
    if hasattr(peer, "channel_id"):
        return ("c", peer.channel_id)
    return ("p", peer.user_id)


async def test_folder_dialogs_and_photo_search_with_real_clients(telethon_user, kurigram_client):
    from pyrogram.raw import functions as kf
    from pyrogram.raw import types as kt
    from telethon import functions, types

    owner, owner_me, owner_phone = await telethon_user("Olga")
    max_, max_me, _ = await telethon_user("Max")
    nina, nina_me, _ = await telethon_user("Nina")
    to_max = types.InputPeerUser(max_me.id, user_access_hash(owner_me.id, max_me.id))
    to_nina = types.InputPeerUser(nina_me.id, user_access_hash(owner_me.id, nina_me.id))

    groups = []
    for i in range(4):
        g = (
            await owner(functions.channels.CreateChannelRequest(title=f"g{i}", about="", megagroup=True))
        ).chats[0]
        await owner(
            functions.channels.InviteToChannelRequest(g, [types.InputUser(max_me.id, to_max.access_hash)])
        )
        await owner.send_message(g, f"hello g{i}")
        groups.append(g)
    news = (
        await owner(functions.channels.CreateChannelRequest(title="news", about="", broadcast=True))
    ).chats[0]
    await owner.send_message(news, "a post")
    await owner.send_message(to_max, "hi Max")
    await owner.send_message(to_nina, "hi Nina")

    # Photos into two groups and the private chat with Max (one from Max's side).
    await owner.send_file(groups[1], _png(320, 200), caption="photo in g1")
    await owner.send_file(groups[2], _png(300, 220), caption="photo in g2")
    await owner.send_file(groups[2], _png(280, 240), caption="another in g2")
    to_owner = types.InputPeerUser(owner_me.id, user_access_hash(max_me.id, owner_me.id))
    await max_.send_file(to_owner, _png(260, 260), caption="photo from Max")
    await owner.send_message(groups[3], "just text")

    # The folder: g2 pinned, g1, g3 and the chat with Max included; saved from Telethon.
    g = [types.InputPeerChannel(x.id, x.access_hash) for x in groups]
    folder = types.DialogFilter(
        id=2, title=types.TextWithEntities(text="Work", entities=[]), pinned_peers=[g[2]],
        include_peers=[g[1], g[3], to_max], exclude_peers=[],
    )  # fmt: skip
    assert await owner(functions.messages.UpdateDialogFilterRequest(id=2, filter=folder))

    # The same user on Kurigram sees the folder and the server applies it.
    kuri = await _kurigram_as(kurigram_client, owner_phone)
    listed = await kuri.invoke(kf.messages.GetDialogFilters())
    saved = next(f for f in listed.filters if getattr(f, "id", 0) == 2)
    assert [p.channel_id for p in saved.pinned_peers] == [groups[2].id]
    assert {_key(p) for p in saved.include_peers} == {
        ("c", groups[1].id),
        ("c", groups[3].id),
        ("p", max_me.id),
    }

    def request(limit, offset_date=0, offset_id=0, offset_peer=None):
        return kf.messages.GetDialogs(
            offset_date=offset_date, offset_id=offset_id, offset_peer=offset_peer or kt.InputPeerEmpty(),
            limit=limit, hash=0, folder_id=2,
        )  # fmt: skip

    whole = await kuri.invoke(request(100))
    order = [_key(d.peer) for d in whole.dialogs]
    assert order[0] == ("c", groups[2].id)
    assert set(order) == {("c", groups[2].id), ("c", groups[1].id), ("c", groups[3].id), ("p", max_me.id)}
    assert len(order) == 4
    # The unpinned ones keep the main list's order (newest first).
    main = [_key(d.dialog.peer) for d in await owner.get_dialogs()]
    assert order[1:] == [k for k in main if k in set(order[1:])]

    # Page by page with the client's own cursor: each chat once, in the same order.
    seen, cursor = [], {}
    for _ in range(5):
        page = await kuri.invoke(request(1, **cursor))
        if not page.dialogs:
            break
        assert page.count == 4
        seen += [_key(d.peer) for d in page.dialogs]
        last = page.dialogs[-1]
        top = next(
            m for m in page.messages if _key(m.peer_id) == _key(last.peer) and m.id == last.top_message
        )
        if hasattr(last.peer, "channel_id"):
            chat = next(c for c in page.chats if c.id == last.peer.channel_id)
            peer = kt.InputPeerChannel(channel_id=chat.id, access_hash=chat.access_hash)
        else:
            user = next(u for u in page.users if u.id == last.peer.user_id)
            peer = kt.InputPeerUser(user_id=user.id, access_hash=user.access_hash)
        cursor = {"offset_date": top.date, "offset_id": top.id, "offset_peer": peer}
    assert seen == order

    # Telethon's own dialog iterator over the folder agrees.
    dialogs = await owner.get_dialogs(folder=2)
    assert [_key(d.dialog.peer) for d in dialogs] == order

    # A folder the user does not have is refused.
    with pytest.raises(Exception, match="FOLDER_ID_INVALID"):
        await kuri.invoke(kf.messages.GetDialogs(
            offset_date=0, offset_id=0, offset_peer=kt.InputPeerEmpty(), limit=10, hash=0, folder_id=9))  # fmt: skip

    # The photo filter of the main search box: the four photos, newest first, paged.
    found = [m async for m in owner.iter_messages(None, filter=types.InputMessagesFilterPhotos, limit=None)]
    assert sorted(m.message for m in found) == sorted(
        ["photo in g1", "photo in g2", "another in g2", "photo from Max"]
    )
    assert all(isinstance(m.media, types.MessageMediaPhoto) for m in found)
    seen_photos, cursor = [], {"offset_rate": 0, "offset_peer": kt.InputPeerEmpty(), "offset_id": 0}
    for _ in range(6):
        page = await kuri.invoke(kf.messages.SearchGlobal(
            q="", filter=kt.InputMessagesFilterPhotos(), min_date=0, max_date=0, limit=1, **cursor))  # fmt: skip
        if not page.messages:
            break
        m = page.messages[-1]
        seen_photos.append(m.message)
        if hasattr(m.peer_id, "channel_id"):
            chat = next(c for c in page.chats if c.id == m.peer_id.channel_id)
            peer = kt.InputPeerChannel(channel_id=chat.id, access_hash=chat.access_hash)
        else:
            user = next(u for u in page.users if u.id == m.peer_id.user_id)
            peer = kt.InputPeerUser(user_id=user.id, access_hash=user.access_hash)
        if not isinstance(page, kt.messages.MessagesSlice):
            break
        cursor = {"offset_rate": page.next_rate, "offset_peer": peer, "offset_id": m.id}
    assert seen_photos == [m.message for m in found]
    # Kurigram's own search helper finds them too.
    from pyrogram import enums

    via_helper = [m async for m in kuri.search_global(filter=enums.MessagesFilter.PHOTO)]
    assert len(via_helper) == 4
    for client in (max_, nina):
        await client.disconnect()
