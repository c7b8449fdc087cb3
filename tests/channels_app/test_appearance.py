"""Channel appearance and paid settings as other members see them: stored, rendered in
Channel / ChannelFull for every viewer, logged where TL has an event, rights checked."""

import pytest
from asgiref.sync import sync_to_async

from accounts_app.actions import do_create_user
from tests.channels_app.test_rpc import call, iu
from tl import functions, types
from tl.errors import (
    ChatAdminRequiredError,
    ChatNotModifiedError,
    ColorInvalidError,
    EmojiStatusInvalidError,
    StarsAmountInvalidError,
)


@pytest.fixture
async def people(chan):
    mk = sync_to_async(do_create_user)
    return (await mk("99966170001", "Owner")).id, (await mk("99966170002", "Member")).id


async def _channel(owner, member, *, megagroup: bool):
    res = await call(owner, functions.channels.CreateChannel(title="look", about="", megagroup=megagroup,
                                                             broadcast=not megagroup))  # fmt: skip
    ch = next(c for c in res.chats if isinstance(c, types.Channel))
    ic = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    await call(owner, functions.channels.InviteToChannel(channel=ic, users=[iu(owner, member)]))
    return ic


async def _seen_by(user, ic):
    (ch,) = (await call(user, functions.channels.GetChannels(id=[ic]))).chats
    full = (await call(user, functions.channels.GetFullChannel(channel=ic))).full_chat
    return ch, full


async def test_colors_are_kept_with_an_explicit_zero_and_logged(people):
    owner, member = people
    ic = await _channel(owner, member, megagroup=True)
    res = await call(owner, functions.channels.UpdateColor(channel=ic, color=0, background_emoji_id=555))
    assert any(isinstance(u, types.UpdateChannel) for u in res.updates)
    await call(owner, functions.channels.UpdateColor(channel=ic, for_profile=True, color=7))
    ch, _ = await _seen_by(member, ic)
    assert ch.color == types.PeerColor(color=0, background_emoji_id=555)
    assert ch.profile_color == types.PeerColor(color=7)
    with pytest.raises(ChatNotModifiedError):
        await call(owner, functions.channels.UpdateColor(channel=ic, color=0, background_emoji_id=555))
    with pytest.raises(ColorInvalidError):
        await call(owner, functions.channels.UpdateColor(channel=ic, color=99))
    with pytest.raises(ChatAdminRequiredError):
        await call(member, functions.channels.UpdateColor(channel=ic, color=3))
    # Neither a color nor an emoji: the color is removed.
    await call(owner, functions.channels.UpdateColor(channel=ic))
    ch, _ = await _seen_by(member, ic)
    assert ch.color is None and ch.profile_color == types.PeerColor(color=7)
    log = await call(owner, functions.channels.GetAdminLog(channel=ic, q="", max_id=0, min_id=0, limit=10))
    actions = [type(e.action).__name__ for e in log.events]
    assert actions.count("ChannelAdminLogEventActionChangePeerColor") == 2
    assert "ChannelAdminLogEventActionChangeProfilePeerColor" in actions
    first = next(e for e in reversed(log.events) if type(e.action).__name__.endswith("ChangePeerColor"))
    assert first.action.prev_value == types.PeerColor() and first.action.new_value.background_emoji_id == 555


async def test_emoji_status_set_expire_and_clear(people):
    owner, member = people
    ic = await _channel(owner, member, megagroup=False)
    status = types.EmojiStatus(document_id=5368324170671202286, until=2_000_000_000)
    await call(owner, functions.channels.UpdateEmojiStatus(channel=ic, emoji_status=status))
    ch, _ = await _seen_by(member, ic)
    assert ch.emoji_status == status
    collectible = types.EmojiStatusCollectible(
        collectible_id=1, document_id=2, title="t", slug="s", pattern_document_id=3, center_color=0,
        edge_color=0, pattern_color=0, text_color=0,
    )  # fmt: skip
    with pytest.raises(EmojiStatusInvalidError):
        await call(owner, functions.channels.UpdateEmojiStatus(channel=ic, emoji_status=collectible))
    await call(owner, functions.channels.UpdateEmojiStatus(channel=ic, emoji_status=types.EmojiStatusEmpty()))
    ch, _ = await _seen_by(member, ic)
    assert ch.emoji_status is None
    log = await call(owner, functions.channels.GetAdminLog(channel=ic, q="", max_id=0, min_id=0, limit=10))
    changes = [
        e.action
        for e in log.events
        if type(e.action).__name__ == "ChannelAdminLogEventActionChangeEmojiStatus"
    ]
    assert changes[0].new_value == types.EmojiStatusEmpty() and changes[1].new_value == status


async def test_autotranslation_and_sponsored_switches_on_broadcasts(people):
    owner, member = people
    ic = await _channel(owner, member, megagroup=False)
    await call(owner, functions.channels.ToggleAutotranslation(channel=ic, enabled=True))
    await call(owner, functions.channels.RestrictSponsoredMessages(channel=ic, restricted=True))
    ch, full = await _seen_by(member, ic)
    assert ch.autotranslation and full.restricted_sponsored
    with pytest.raises(ChatNotModifiedError):
        await call(owner, functions.channels.ToggleAutotranslation(channel=ic, enabled=True))
    log = await call(owner, functions.channels.GetAdminLog(channel=ic, q="", max_id=0, min_id=0, limit=10))
    assert any(
        type(e.action).__name__ == "ChannelAdminLogEventActionToggleAutotranslation" for e in log.events
    )


async def test_paid_messages_price_in_groups_and_broadcast_direct_messages(people):
    owner, member = people
    group = await _channel(owner, member, megagroup=True)
    await call(owner, functions.channels.UpdatePaidMessagesPrice(channel=group, send_paid_messages_stars=250))
    ch, full = await _seen_by(member, group)
    assert ch.send_paid_messages_stars == 250 and full.send_paid_messages_stars == 250
    for bad in (-1, 10_001):
        with pytest.raises(StarsAmountInvalidError):
            await call(
                owner, functions.channels.UpdatePaidMessagesPrice(channel=group, send_paid_messages_stars=bad)
            )
    await call(owner, functions.channels.UpdatePaidMessagesPrice(channel=group, send_paid_messages_stars=0))
    ch, _ = await _seen_by(member, group)
    assert ch.send_paid_messages_stars is None

    broadcast = await _channel(owner, member, megagroup=False)
    await call(owner, functions.channels.UpdatePaidMessagesPrice(
        channel=broadcast, send_paid_messages_stars=10, broadcast_messages_allowed=True))  # fmt: skip
    ch, full = await _seen_by(member, broadcast)
    assert (
        ch.broadcast_messages_allowed and full.paid_messages_available and full.send_paid_messages_stars == 10
    )
    await call(
        owner, functions.channels.UpdatePaidMessagesPrice(channel=broadcast, send_paid_messages_stars=-1)
    )
    ch, full = await _seen_by(member, broadcast)
    assert not ch.broadcast_messages_allowed and not full.paid_messages_available
