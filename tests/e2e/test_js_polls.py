"""Polls from GramJS (npm ``telegram`` 2.26, layer 198, translated to and from the
primary layer): a GramJS user creates a poll and a quiz in a megagroup, a Telethon user
votes, GramJS sees the exact totals live (updateMessagePoll) and in getPollResults, and
its own quiz answer is final with the correct answer revealed."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from accounts_app.models import User
from tests.e2e import harness
from tests.e2e.js_clients import JsClient, ensure_node_modules
from tests.e2e.test_js_clients import live_telethon, no_server_errors

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="session")
def node_modules():
    ensure_node_modules()


async def _poll_event(js: JsClient, total: int):
    for _ in range(10):
        ev = await js.wait("poll")
        if ev["total"] == total:
            return ev
    raise AssertionError(f"no poll update with {total} voters")


async def scenario(js: JsClient, server) -> None:
    from asgiref.sync import sync_to_async
    from telethon import functions, types

    from accounts_app.actions import do_create_user

    alice_phone, alice_code = harness.fresh_phone()
    await sync_to_async(do_create_user)(alice_phone, "Alice js")
    bob_phone, bob_code = harness.fresh_phone()
    await User.objects.acreate(phone=bob_phone, first_name="Bob js")
    bob = live_telethon(server)
    try:
        await bob.connect()
        sent = await bob.send_code_request(bob_phone)
        await bob.sign_in(bob_phone, code=bob_code, phone_code_hash=sent.phone_code_hash)
        bob_name = f"bob{uuid.uuid4().hex[:12]}"
        await bob(functions.account.UpdateUsernameRequest(bob_name))
        await js.call("login", phone=alice_phone, code=alice_code)
        group = await js.call("create_megagroup", title="JS polls", invite=bob_name)
        chat, channel_id = group["id"], int(group["channel_id"])
        await bob.get_dialogs()
        peer_b = await bob.get_input_entity(types.PeerChannel(channel_id))

        poll = await js.call(
            "send_poll", chat=chat, question="Tea or coffee?", answers=["tea", "coffee", "water"]
        )
        assert poll["answers"] == 3
        await bob(functions.messages.SendVoteRequest(peer=peer_b, msg_id=poll["id"], options=[b"1"]))
        live = await _poll_event(js, 1)
        assert live["counts"] == [0, 1, 0] and live["chosen"] == []  # Bob's choice is his
        mine = await js.call("vote", chat=chat, id=poll["id"], options=[1])
        assert mine == {"total": 2, "counts": [0, 2, 0], "chosen": [1], "correct": []}
        assert await js.call("poll_results", chat=chat, id=poll["id"]) == mine

        quiz = await js.call(
            "send_poll",
            chat=chat,
            question="Capital of France?",
            answers=["Lyon", "Paris"],
            quiz=True,
            correct=1,
        )
        assert quiz["quiz"]
        first = await js.call("vote", chat=chat, id=quiz["id"], options=[0])
        assert first["chosen"] == [0] and first["correct"] == [1]
        again = await js.call("vote", chat=chat, id=quiz["id"], options=[1])
        assert again == {"error": "REVOTE_NOT_ALLOWED"}
        seen = (await bob(functions.channels.GetMessagesRequest(channel=peer_b, id=[quiz["id"]]))).messages[0]
        assert seen.media.results.total_voters == 1 and not any(r.correct for r in seen.media.results.results)
    finally:
        await bob.disconnect()


async def test_gramjs_polls(node_modules, edge_server, edge_db, tmp_path):
    start = len(edge_server.log())
    js = await JsClient.start(
        "gramjs_client.mjs", edge_server, tmp_path / "gramjs-polls.log", GRAMJS_TRANSPORT="tcp"
    )
    try:
        await asyncio.wait_for(scenario(js, edge_server), 90)
    finally:
        await js.close()
    no_server_errors(edge_server, start)
