"""The checks of concurrent sends to one channel are read together
(channels_app.actions.send_context) and still answer each send for itself."""

import asyncio

import pytest

from channels_app import actions
from channels_app.actions import send_context
from channels_app.actions.usernames import do_update_username
from channels_app.errors import ChannelPrivateError, ChatWriteForbiddenError

A, B, C, OUTSIDER = 21, 22, 23, 29


async def test_sends_of_one_turn_share_one_read_and_keep_their_own_answers(chan, monkeypatch):
    g = (await actions.do_create_channel(A, "g", invite_user_ids=[B, C], from_create_chat=True)).channel
    first = await actions.do_send_message(B, g["id"], "before", random_id=7)

    reads = []
    real = send_context._fetch

    async def counting(channel_id, sends):
        reads.append(len(sends))
        return await real(channel_id, sends)

    monkeypatch.setattr(send_context._batches, "_run", counting)
    results = await asyncio.gather(
        actions.do_send_message(A, g["id"], "a", random_id=1),
        actions.do_send_message(B, g["id"], "retry", random_id=7),  # B's earlier send
        actions.do_send_message(OUTSIDER, g["id"], "let me in", random_id=2),
        actions.do_send_message(C, g["id"], "c", random_id=7),  # the same random id, another sender
        actions.do_send_message(B, g["id"], "b", random_id=8),
        return_exceptions=True,
    )
    assert reads == [5]  # one query for the five
    a, retry, outsider, c, b = results
    assert isinstance(outsider, ChannelPrivateError)
    assert retry.duplicate and retry.events[0].message["id"] == first.events[0].message["id"]
    assert retry.events[0].message["message"] == "before"
    for change, who, text in ((a, A, "a"), (c, C, "c"), (b, B, "b")):
        assert not change.duplicate
        assert (change.events[0].message["sender_user_id"], change.events[0].message["message"]) == (
            who,
            text,
        )


async def test_a_read_for_a_missing_channel_fails_every_send_of_it(chan):
    results = await asyncio.gather(
        *(actions.do_send_message(A, 10**12 + 5, "x", random_id=i) for i in range(1, 4)),
        return_exceptions=True,
    )
    assert all(isinstance(r, ChannelPrivateError) for r in results)


async def test_a_public_channel_tells_an_outsider_to_join(chan):
    g = (await actions.do_create_channel(A, "g", invite_user_ids=[B], from_create_chat=True)).channel
    await do_update_username(A, g["id"], "opengroup")
    with pytest.raises(ChatWriteForbiddenError):
        await actions.do_send_message(OUTSIDER, g["id"], "hi", random_id=1)
