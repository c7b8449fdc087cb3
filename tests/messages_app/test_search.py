"""Search and discovery as a user notices them: the main search box finds a word across
groups, channels and private chats and pages on; public posts, recommendations and
contacts.search find public channels by a title fragment; the trigram indexes serve them."""

import pytest
from asgiref.sync import sync_to_async

from accounts_app.actions import do_create_user
from message_core import db
from tests.channels_app.test_rpc import call, iu
from tl import functions, types
from tl.errors import LimitInvalidError, SearchQueryEmptyError


@pytest.fixture
async def people(chan):
    mk = sync_to_async(do_create_user)
    return [(await mk(f"9996620000{i}", f"U{i}")).id for i in range(3)]


async def _channel(owner, title, *members, broadcast=False, username=None):
    res = await call(owner, functions.channels.CreateChannel(title=title, about="", megagroup=not broadcast,
                                                             broadcast=broadcast))  # fmt: skip
    ch = next(c for c in res.chats if isinstance(c, types.Channel))
    ic = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    if members:
        await call(
            owner, functions.channels.InviteToChannel(channel=ic, users=[iu(owner, m) for m in members])
        )
    if username:
        await call(owner, functions.channels.UpdateUsername(channel=ic, username=username))
    return ic, types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)


async def _send(user, peer, text, rid):
    return await call(user, functions.messages.SendMessage(peer=peer, message=text, random_id=rid))


def _global(q, limit=10, **kw):
    kw.setdefault("filter", types.InputMessagesFilterEmpty())
    return functions.messages.SearchGlobal(
        q=q, min_date=0, max_date=0, offset_rate=kw.pop("offset_rate", 0),
        offset_peer=kw.pop("offset_peer", types.InputPeerEmpty()), offset_id=kw.pop("offset_id", 0), limit=limit, **kw,
    )  # fmt: skip


async def test_search_global_across_groups_channels_and_private_chats_with_paging(people):
    a, b, c = people
    _, g1 = await _channel(a, "g1", b)
    _, g2 = await _channel(b, "g2", a)
    _, g3 = await _channel(c, "g3")  # a is not a member: never found
    _, news = await _channel(b, "news", a, broadcast=True)
    await _send(a, g1, "the quarterly Report is due", 1)
    await _send(b, g2, "report draft attached", 2)
    await _send(c, g3, "secret report", 3)
    await _send(b, news, "annual report published", 4)
    await _send(b, g1, "unrelated chatter", 5)
    dm = types.InputPeerUser(user_id=b, access_hash=iu(a, b).access_hash)
    await _send(a, dm, "private report copy", 6)

    res = await call(a, _global("report"))
    texts = sorted(m.message for m in res.messages)
    assert texts == sorted(
        [
            "the quarterly Report is due",
            "report draft attached",
            "annual report published",
            "private report copy",
        ]
    )
    assert isinstance(res, types.messages.Messages)
    named = {u.id for u in res.users} | {ch.id for ch in res.chats}
    for m in res.messages:  # every peer a result names is in the answer
        assert (
            m.peer_id.channel_id if isinstance(m.peer_id, types.PeerChannel) else m.peer_id.user_id
        ) in named

    # Pages of two, following next_rate / offset_peer / offset_id, see each result once.
    seen, kw = [], {}
    for _ in range(4):
        page = await call(a, _global("report", limit=2, **kw))
        seen += [m.message for m in page.messages]
        if not isinstance(page, types.messages.MessagesSlice):
            break
        last = page.messages[-1]
        if isinstance(last.peer_id, types.PeerChannel):
            ch = next(x for x in page.chats if x.id == last.peer_id.channel_id)
            offset_peer = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
        else:
            offset_peer = types.InputPeerUser(
                user_id=last.peer_id.user_id, access_hash=iu(a, last.peer_id.user_id).access_hash
            )
        kw = {"offset_rate": page.next_rate, "offset_peer": offset_peer, "offset_id": last.id}
    assert sorted(seen) == texts

    only_channels = await call(a, _global("report", broadcasts_only=True))
    assert [m.message for m in only_channels.messages] == ["annual report published"]
    only_groups = await call(a, _global("report", groups_only=True))
    assert len(only_groups.messages) == 2
    only_users = await call(a, _global("report", users_only=True))
    assert [m.message for m in only_users.messages] == ["private report copy"]
    assert (await call(a, _global("report", filter=types.InputMessagesFilterPhotos()))).messages == []
    with pytest.raises(SearchQueryEmptyError):
        await call(a, _global("  "))
    with pytest.raises(LimitInvalidError):
        await call(a, _global("x" * 257))


async def test_public_posts_recommendations_and_contacts_search(people):
    a, b, _ = people
    _, public = await _channel(a, "Daily Gardening Tips", broadcast=True, username="gardentips")
    _, private = await _channel(a, "Private Garden", broadcast=True)
    _, big = await _channel(a, "Cooking", b, broadcast=True, username="cookingdaily")
    await _send(a, public, "plant #tomatoes in spring", 1)
    await _send(a, private, "plant #tomatoes secretly", 2)
    posts = await call(b, functions.channels.SearchPosts(
        hashtag="tomatoes", offset_rate=0, offset_peer=types.InputPeerEmpty(), offset_id=0, limit=10))  # fmt: skip
    assert [m.message for m in posts.messages] == ["plant #tomatoes in spring"]
    assert posts.chats and posts.chats[0].username == "gardentips"
    by_word = await call(b, functions.channels.SearchPosts(
        query="spring", offset_rate=0, offset_peer=types.InputPeerEmpty(), offset_id=0, limit=10))  # fmt: skip
    assert len(by_word.messages) == 1

    rec = await call(b, functions.channels.GetChannelRecommendations())
    assert [c.title for c in rec.chats] == ["Daily Gardening Tips"]  # b already follows Cooking
    src = big.channel_id
    (cooking,) = (
        await call(
            b,
            functions.channels.GetChannels(
                id=[types.InputChannel(channel_id=src, access_hash=big.access_hash)]
            ),
        )
    ).chats
    rec = await call(b, functions.channels.GetChannelRecommendations(
        channel=types.InputChannel(channel_id=cooking.id, access_hash=cooking.access_hash)))  # fmt: skip
    assert "Cooking" not in [c.title for c in rec.chats] and "Daily Gardening Tips" in [
        c.title for c in rec.chats
    ]

    found = await call(b, functions.contacts.Search(q="garden", limit=10))
    assert [c.title for c in found.chats] == [
        "Daily Gardening Tips"
    ]  # a title fragment; private ones stay hidden
    found = await call(b, functions.contacts.Search(q="cook", limit=10))
    assert [c.username for c in found.chats] == ["cookingdaily"]  # a username prefix (and b's own channel)


async def _plan(sql: str, params) -> str:
    async with db.connection() as conn:
        await conn.execute("SET enable_seqscan = off")
        cur = await conn.execute("EXPLAIN " + sql, params)
        plan = "\n".join(r["QUERY PLAN"] for r in await cur.fetchall())
        await conn.execute("RESET enable_seqscan")
    return plan


async def test_text_search_uses_the_trigram_indexes(people):
    a, _, _ = people
    await _channel(a, "indexed", broadcast=True, username="indexedchan")
    plan = await _plan("SELECT id FROM channel_messages WHERE message ILIKE %s", ("%report%",))
    assert "Index Cond: (message ~~* '%report%'::text)" in plan
    plan = await _plan(
        "SELECT id FROM channels WHERE username <> '' AND NOT deleted AND lower(title) LIKE %s", ("%garden%",)
    )
    assert "Index Cond: (lower((title)::text) ~~ '%garden%'::text)" in plan
    plan = await _plan(
        "SELECT id FROM channels WHERE username <> '' AND NOT deleted AND lower(username) LIKE %s", ("cook%",)
    )
    assert "Index Cond: (lower((username)::text) ~~ 'cook%'::text)" in plan
    # A media filter without text reads the media rows' partial index.
    plan = await _plan(
        "SELECT id FROM channel_messages m WHERE m.channel_id = ANY(%s) AND NOT m.deleted"
        " AND m.media IS NOT NULL AND m.media->>'kind' = ANY(%s) ORDER BY m.date DESC LIMIT 50",
        ([1000000001], ["photo"]),
    )
    # (each partition's copy of channel_messages_media_date_idx is named for its columns;
    # the partial predicate is the index's, so no filter on it remains. A bitmap scan,
    # which the planner picks on some table sizes, lists it as its recheck condition.)
    filters = [line for line in plan.splitlines() if "Filter:" in line]
    assert "_channel_id_date_id_idx" in plan
    assert not any("deleted" in f or "IS NOT NULL" in f for f in filters), plan
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT indexname FROM pg_indexes WHERE indexname IN"
            " ('channel_messages_body_trgm_idx', 'channels_public_title_trgm_idx',"
            " 'channels_public_username_trgm_idx', 'private_messages_sender_body_trgm_idx',"
            " 'channel_messages_media_date_idx')"
        )
        assert len(await cur.fetchall()) == 5


def _png(seed: int) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (40, 30), (seed * 40 % 256, 90, 160)).save(buf, "PNG")
    return buf.getvalue()


async def _send_photo(user, peer, rid, caption=""):
    file_id = 7000 + rid
    await call(user, functions.upload.SaveFilePart(file_id=file_id, file_part=0, bytes=_png(rid)))
    media = types.InputMediaUploadedPhoto(
        file=types.InputFile(id=file_id, parts=1, name=f"p{rid}.png", md5_checksum="")
    )
    await call(user, functions.messages.SendMedia(peer=peer, media=media, message=caption, random_id=rid))


async def test_search_global_media_filters_across_groups_and_private_chats_with_paging(
    people, tmp_path, settings
):
    settings.TELESRV_UPLOADS_DIR = tmp_path / "uploads"
    a, b, c = people
    _, g1 = await _channel(a, "g1", b)
    _, g2 = await _channel(b, "g2", a)
    _, g3 = await _channel(c, "g3")  # a is not a member: its photo is never found
    dm = types.InputPeerUser(user_id=b, access_hash=iu(a, b).access_hash)
    await _send_photo(a, g1, 101, "first")
    await _send_photo(b, g2, 102)
    await _send_photo(c, g3, 103)
    await _send_photo(b, types.InputPeerUser(user_id=a, access_hash=iu(b, a).access_hash), 104, "to a")
    await _send_photo(a, g1, 105, "second")
    await _send(a, g2, "no photo here", 106)
    link = types.MessageEntityUrl(offset=0, length=15)
    await call(
        a, functions.messages.SendMessage(peer=dm, message="https://e.org x", random_id=107, entities=[link])
    )
    await call(
        b, functions.messages.SendMessage(peer=g2, message="https://e.org y", random_id=108, entities=[link])
    )

    photos = types.InputMessagesFilterPhotos()
    res = await call(a, _global("", filter=photos, limit=50))
    assert len(res.messages) == 4
    assert all(isinstance(m.media, types.MessageMediaPhoto) for m in res.messages)
    places = sorted(
        ("c", m.peer_id.channel_id) if isinstance(m.peer_id, types.PeerChannel) else ("p", m.peer_id.user_id)
        for m in res.messages
    )
    assert places == sorted([("c", g1.channel_id), ("c", g1.channel_id), ("c", g2.channel_id), ("p", b)])
    # Text narrows a media filter; the media filter keeps text search to that media.
    assert [m.message for m in (await call(a, _global("second", filter=photos))).messages] == ["second"]
    assert (await call(a, _global("photo", filter=photos))).messages == []
    links = await call(a, _global("", filter=types.InputMessagesFilterUrl()))
    assert sorted(m.message for m in links.messages) == ["https://e.org x", "https://e.org y"]
    assert (await call(a, _global("", filter=types.InputMessagesFilterVideo()))).messages == []
    assert len((await call(a, _global("", filter=photos, groups_only=True))).messages) == 3
    assert len((await call(a, _global("", filter=photos, users_only=True))).messages) == 1

    # Pages of one follow the cursor and see each photo once, newest first.
    seen, kw = [], {}
    for _ in range(6):
        page = await call(a, _global("", filter=photos, limit=1, **kw))
        if not page.messages:
            break
        last = page.messages[-1]
        place = getattr(last.peer_id, "channel_id", None) or ("user", last.peer_id.user_id)
        seen.append((place, last.id, last.date))
        if isinstance(last.peer_id, types.PeerChannel):
            ch = next(x for x in page.chats if x.id == last.peer_id.channel_id)
            offset_peer = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
        else:
            offset_peer = types.InputPeerUser(user_id=b, access_hash=iu(a, b).access_hash)
        if not isinstance(page, types.messages.MessagesSlice):
            break
        kw = {"offset_rate": page.next_rate, "offset_peer": offset_peer, "offset_id": last.id}
    assert len(seen) == 4 and len(set(seen)) == 4
    assert [d for *_, d in seen] == sorted((d for *_, d in seen), reverse=True)
    with pytest.raises(SearchQueryEmptyError):
        await call(a, _global("", filter=types.InputMessagesFilterChatPhotos()))
