"""Channel reactions, views and read receipts at the domain level."""

import pytest

from channels_app import actions
from channels_app.actions import reactions, read_receipts, views
from message_core import db
from tl.errors import MessageIdInvalidError, ReactionsTooManyError

A, B, C, D = 31, 32, 33, 34


async def test_reactions_totals_unread_badge_and_reading(chan):
    g = (await actions.do_create_channel(A, "g", invite_user_ids=[B, C], from_create_chat=True)).channel
    sent = await actions.do_send_message(A, g["id"], "hi", random_id=1)
    mid = sent.events[0].message["id"]
    await reactions.do_send_reaction(B, g["id"], mid, ["👍"])
    change = await reactions.do_send_reaction(C, g["id"], mid, ["👍"])
    assert change.summary["counts"] == {"👍": 2} and change.summary["mine"] == ["👍"]
    told = [p for k, p in chan if k == "channel.reactions"][-1]
    assert {k: told[k] for k in ("channel_id", "msg_id", "actor", "author")} == {
        "channel_id": g["id"], "msg_id": mid, "actor": C, "author": A,
    }  # fmt: skip
    # What the bots' message_reaction is made of: before, after, and whether bots are there.
    assert (told["old"], told["new"], told["bot_members"]) == ([], ["👍"], 0)
    h = await actions.get_history(A, g["id"], limit=10)
    shown = next(m for m in h.messages if m["id"] == mid)
    assert shown["reactions"]["mine"] == [] and all(r["unread"] for r in shown["reactions"]["recent"])
    assert {B, C} <= h.user_ids  # the reactors come with the page
    dialog = await db.fetchone(
        "SELECT unread_reactions_count FROM channel_dialogs WHERE user_id = %s AND channel_id = %s",
        (A, g["id"]),
    )
    assert dialog["unread_reactions_count"] == 1
    ids, total = await reactions.unread_reaction_ids(A, g["id"])
    assert (ids, total) == ([mid], 1)
    # Replacing keeps one reaction per user; the cap of distinct reactions holds.
    await actions.settings.do_set_available_reactions(A, g["id"], "all", [], 1)
    with pytest.raises(ReactionsTooManyError):
        await reactions.do_send_reaction(B, g["id"], mid, ["❤"])
    await reactions.do_send_reaction(B, g["id"], mid, [])
    await reactions.do_send_reaction(C, g["id"], mid, [])
    assert (await reactions.do_send_reaction(B, g["id"], mid, ["❤"])).summary["counts"] == {"❤": 1}
    _, cleared = await reactions.do_read_contents(A, g["id"], [mid])
    assert cleared == [mid]
    assert (await reactions.unread_reaction_ids(A, g["id"]))[1] == 0
    with pytest.raises(MessageIdInvalidError):
        await reactions.do_send_reaction(B, g["id"], 1, ["❤"])  # the service message


async def test_views_count_each_subscriber_once(chan):
    from channels_app import tl_convert

    ch = (await actions.do_create_channel(A, "news", broadcast=True, invite_user_ids=[B, C, D])).channel
    post = (await actions.do_send_message(A, ch["id"], "post", random_id=1)).events[0].message["id"]
    shown = []
    for user in (A, B, C, D):
        h = await actions.get_messages(user, ch["id"], [post])
        for _ in range(2):
            await views.do_record_views(user, h.channel, h.member, [post, 999])
        h = await actions.get_messages(user, ch["id"], [post])
        shown.append(tl_convert.message_to_tl(h.messages[0], user).views)
    # The author's view was counted when it posted; each subscriber adds one, once.
    assert shown == [1, 2, 3, 4]
    assert h.messages[0]["views_count"] == 3


async def test_read_participants_rules(chan):
    g = (await actions.do_create_channel(A, "g", invite_user_ids=[B, C], from_create_chat=True)).channel
    mid = (await actions.do_send_message(A, g["id"], "seen?", random_id=1)).events[0].message["id"]
    assert await read_receipts.read_participants(A, g["id"], mid) == []
    await actions.do_read_history(B, g["id"], mid)
    readers = await read_receipts.read_participants(A, g["id"], mid)
    assert [u for u, _ in readers] == [B] and readers[0][1] > 0
    assert await read_receipts.read_participants(B, g["id"], mid) == []  # never the requester
    async with db.connection() as conn:
        await conn.execute("UPDATE channels SET participants_hidden = true WHERE id = %s", (g["id"],))
    assert await read_receipts.read_participants(A, g["id"], mid) == []


async def test_deleting_a_message_clears_its_unread_reactions(chan):
    g = (await actions.do_create_channel(A, "g", invite_user_ids=[B], from_create_chat=True)).channel
    mid = (await actions.do_send_message(A, g["id"], "x", random_id=1)).events[0].message["id"]
    await reactions.do_send_reaction(B, g["id"], mid, ["👍"])
    assert (await reactions.unread_reaction_ids(A, g["id"]))[1] == 1
    await actions.do_delete_messages(A, g["id"], [mid])
    assert (await reactions.unread_reaction_ids(A, g["id"])) == ([], 0)


async def test_posting_reads_the_chat_for_seen_by_and_the_sender_is_never_a_reader(chan):
    g = (await actions.do_create_channel(A, "g", invite_user_ids=[B, C], from_create_chat=True)).channel
    mid = (await actions.do_send_message(A, g["id"], "seen?", random_id=1)).events[0].message["id"]
    # B answers without opening the chat explicitly: posting marks it read, with a date.
    await actions.do_send_message(B, g["id"], "yes", random_id=2)
    readers = await read_receipts.read_participants(A, g["id"], mid)
    assert [u for u, _ in readers] == [B] and readers[0][1] > 0
    # C asks about A's message: A wrote it, so A is not listed as having read it.
    await actions.do_read_history(C, g["id"], mid)
    assert [u for u, _ in await read_receipts.read_participants(C, g["id"], mid)] == [B]


async def test_a_fresh_post_shows_one_view_and_views_take_at_most_a_page_of_ids(chan):
    from channels_app import tl_convert
    from tl.errors import LimitInvalidError

    ch = (await actions.do_create_channel(A, "news", broadcast=True, invite_user_ids=[B])).channel
    post = (await actions.do_send_message(A, ch["id"], "post", random_id=1)).events[0].message
    assert tl_convert.message_to_tl(post, B).views == 1  # as pushed live: the author saw it
    h = await actions.get_messages(B, ch["id"], [post["id"]])
    with pytest.raises(LimitInvalidError):
        await views.do_record_views(B, h.channel, h.member, list(range(1, 102)))
    await views.do_record_views(B, h.channel, h.member, [post["id"]])
    h = await actions.get_messages(B, ch["id"], [post["id"]])
    # The first subscriber who opens it raises it: the author's view and B's.
    assert tl_convert.message_to_tl(h.messages[0], B).views == 2 and h.messages[0]["views_count"] == 1


async def test_a_fresh_page_asks_for_reactions_only_of_messages_that_have_them(chan, monkeypatch):
    g = (await actions.do_create_channel(A, "g", invite_user_ids=[B], from_create_chat=True)).channel
    ids = [
        (await actions.do_send_message(A, g["id"], f"m{i}", random_id=i)).events[0].message["id"]
        for i in (1, 2, 3)
    ]
    await reactions.do_send_reaction(B, g["id"], ids[1], ["👍"])
    asked = []
    real = reactions.attach

    async def spy(viewer_id, channel, messages, conn=None):
        asked.append([m["id"] for m in messages])
        return await real(viewer_id, channel, messages, conn)

    monkeypatch.setattr(reactions, "attach", spy)
    page = await actions.get_history(B, g["id"], limit=10)
    assert asked == [[ids[1]]]
    shown = {m["id"]: m for m in page.messages}
    assert shown[ids[1]]["reactions"]["mine"] == ["👍"]  # the viewer's own choice, read now
    assert all(shown[i].get("reactions") is None for i in (ids[0], ids[2]))

    asked.clear()
    await actions.get_history(B, g["id"], limit=10, offset_id=ids[1])  # older than the reacted one
    assert asked == [[]]  # a page without reactions: no query (attach returns at once)
