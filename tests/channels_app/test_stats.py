"""stats.* from the store, and the premium.* boost answers: admins only, real counts
where the store has them, parsable no-data graphs elsewhere, never a fake boost."""

import json

import pytest
from asgiref.sync import sync_to_async

from accounts_app.actions import do_create_user
from tests.channels_app.test_rpc import call, iu
from tl import functions, types
from tl.errors import (
    ChannelInvalidError,
    ChatAdminRequiredError,
    GraphInvalidReloadError,
    MessageIdInvalidError,
    PremiumAccountRequiredError,
)


@pytest.fixture
async def people(chan):
    mk = sync_to_async(do_create_user)
    return [(await mk(f"9996618000{i}", f"P{i}")).id for i in range(3)]


async def _group(owner, *members, broadcast=False):
    res = await call(owner, functions.channels.CreateChannel(title="stats", about="", megagroup=not broadcast,
                                                             broadcast=broadcast))  # fmt: skip
    ch = next(c for c in res.chats if isinstance(c, types.Channel))
    ic = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    if members:
        await call(
            owner, functions.channels.InviteToChannel(channel=ic, users=[iu(owner, m) for m in members])
        )
    return ic, types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)


async def test_megagroup_stats_count_messages_posters_and_joins(people):
    owner, b, c = people
    ic, peer = await _group(owner, b, c)
    for user, n in ((b, 3), (c, 1), (owner, 2)):
        for i in range(n):
            await call(
                user,
                functions.messages.SendMessage(peer=peer, message="x" * (10 + i), random_id=user * 100 + i),
            )
    s = await call(owner, functions.stats.GetMegagroupStats(channel=ic))
    assert s.members.current == 3 and s.members.previous == 0  # everyone joined inside the period
    assert s.messages.current == 6 and s.posters.current == 3
    assert (s.top_posters[0].user_id, s.top_posters[0].messages) == (b, 3)
    assert s.top_posters[0].avg_chars == 11
    assert {u.id for u in s.users} >= {owner, b, c}  # every top poster named in users
    graph = json.loads(s.messages_graph.json.data)
    assert graph["columns"][0][0] == "x" and sum(graph["columns"][1][1:]) == 6
    assert isinstance(s.languages_graph, types.StatsGraphError)
    assert s.top_inviters and s.top_inviters[0].user_id == owner and s.top_inviters[0].invitations == 2
    with pytest.raises(ChatAdminRequiredError):
        await call(b, functions.stats.GetMegagroupStats(channel=ic))
    with pytest.raises(ChannelInvalidError):
        await call(owner, functions.stats.GetBroadcastStats(channel=ic))


async def test_broadcast_stats_message_stats_and_graph_tokens(people):
    owner, b, _ = people
    ic, peer = await _group(owner, b, broadcast=True)
    sent = await call(owner, functions.messages.SendMessage(peer=peer, message="post", random_id=1))
    msg_id = next(u.message.id for u in sent.updates if isinstance(u, types.UpdateNewChannelMessage))
    s = await call(owner, functions.stats.GetBroadcastStats(channel=ic))
    assert s.followers.current == 2 and s.enabled_notifications.part == 2
    assert [p.msg_id for p in s.recent_posts_interactions] == [msg_id]
    m = await call(owner, functions.stats.GetMessageStats(channel=ic, msg_id=msg_id))
    assert isinstance(m.views_graph, types.StatsGraphError)
    with pytest.raises(MessageIdInvalidError):
        await call(owner, functions.stats.GetMessageStats(channel=ic, msg_id=msg_id + 50))
    fw = await call(
        owner, functions.stats.GetMessagePublicForwards(channel=ic, msg_id=msg_id, offset="", limit=20)
    )
    assert fw.count == 0 and fw.forwards == []
    with pytest.raises(GraphInvalidReloadError):
        await call(owner, functions.stats.LoadAsyncGraph(token="anything"))


async def test_boost_answers_are_the_zero_state(people):
    owner, b, _ = people
    _, peer = await _group(owner, b, broadcast=True)
    status = await call(b, functions.premium.GetBoostsStatus(peer=peer))
    assert status.level == 0 and status.boosts == 0 and status.boost_url.startswith("https://t.me/boost/")
    assert (await call(owner, functions.premium.GetBoostsList(peer=peer, offset="", limit=10))).count == 0
    with pytest.raises(ChatAdminRequiredError):
        await call(b, functions.premium.GetBoostsList(peer=peer, offset="", limit=10))
    assert (await call(b, functions.premium.GetMyBoosts())).my_boosts == []
    with pytest.raises(PremiumAccountRequiredError):
        await call(b, functions.premium.ApplyBoost(peer=peer))
