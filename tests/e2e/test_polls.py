"""Polls and quizzes with unmodified Telethon clients: creation rules (Telegram's
errors, nothing stored), concurrent votes from several members seen as exact totals
live and in history, per-viewer chosen/correct, retraction, final quiz answers, public
voters paged, anonymous voters never listed, closing by edit and at close_date, and a
poll in a private chat and a broadcast channel."""

from __future__ import annotations

import asyncio
import contextlib
import random

import pytest

from tests.e2e.test_channels import collect, input_user, logged_in, wait_for
from tests.e2e.test_workers import two_workers  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@contextlib.contextmanager
def rpc_error(name: str):
    """The call fails with Telegram's error ``name`` (Telethon's own text differs)."""
    from telethon import errors
    from telethon.errors.rpcerrorlist import rpc_errors_dict

    with pytest.raises(errors.RPCError) as e:
        yield
    known = rpc_errors_dict.get(name)
    if known is not None:
        assert isinstance(e.value, known), repr(e.value)
    else:
        assert e.value.message == name, repr(e.value)


def poll_media(question: str, answers: list[str], **kw):
    from telethon import types

    correct = kw.pop("correct", None)
    solution = kw.pop("solution", None)
    poll = types.Poll(
        id=0,
        question=types.TextWithEntities(text=question, entities=[]),
        answers=[
            types.PollAnswer(text=types.TextWithEntities(text=a, entities=[]), option=bytes([48 + i]))
            for i, a in enumerate(answers)
        ],
        hash=0,
        **kw,
    )
    return types.InputMediaPoll(
        poll=poll, correct_answers=correct, solution=solution, solution_entities=[] if solution else None
    )


async def _send_poll(client, peer, media):
    from telethon import functions

    return await client(
        functions.messages.SendMediaRequest(
            peer=peer, media=media, message="", random_id=random.getrandbits(62) + 1
        )
    )


def _sent(answer):
    from telethon import types

    return next(
        u.message
        for u in answer.updates
        if isinstance(u, types.UpdateNewChannelMessage | types.UpdateNewMessage)
    )


def _counts(results) -> dict[bytes, int]:
    return {r.option: r.voters for r in results.results or ()}


async def _group(a, alice, members, *, broadcast=False):
    from telethon import functions

    created = await a(
        functions.channels.CreateChannelRequest(
            title="Polls", about="", megagroup=not broadcast, broadcast=broadcast
        )
    )
    channel = created.chats[0]
    if members:
        await a(functions.channels.InviteToChannelRequest(channel, [input_user(alice, m) for m in members]))
    return channel


async def _poll_rows() -> int:
    from polls_app.models import Poll

    return await Poll.objects.acount()


async def test_poll_in_group_concurrent_votes_exact_live(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    voters = [await logged_in(edge_server, f"V{i}", clients) for i in range(4)]
    channel = await _group(a, alice, [v[0] for v in voters])
    seen: list = []
    a.add_event_handler(collect(seen), events.Raw(types.UpdateMessagePoll))
    await a.get_dialogs()
    seen_by_voter: list = []
    voters[3][1].add_event_handler(collect(seen_by_voter), events.Raw(types.UpdateMessagePoll))
    await voters[3][1].get_dialogs()

    before = await _poll_rows()
    with rpc_error("POLL_ANSWERS_INVALID"):
        await _send_poll(a, channel, poll_media("Too many?", [f"a{i}" for i in range(13)]))
    with rpc_error("POLL_ANSWERS_INVALID"):
        await _send_poll(a, channel, poll_media("One?", ["only"]))
    with rpc_error("QUIZ_CORRECT_ANSWERS_EMPTY"):
        await _send_poll(a, channel, poll_media("Quiz?", ["x", "y"], quiz=True))
    with rpc_error("QUIZ_MULTIPLE_INVALID"):
        await _send_poll(
            a, channel, poll_media("Quiz?", ["x", "y"], quiz=True, multiple_choice=True, correct=[0])
        )
    assert await _poll_rows() == before  # bad input writes nothing

    msg = _sent(
        await _send_poll(a, channel, poll_media("Lunch?", ["pizza", "sushi", "salad"], public_voters=True))
    )
    assert isinstance(msg.media, types.MessageMediaPoll) and len(msg.media.poll.answers) == 3
    assert msg.media.results.total_voters == 0 and not msg.media.results.min  # the sender's own view
    poll_id = msg.media.poll.id

    # Four members vote at the same moment (two for "0", one "1", one "2").
    choices = [b"0", b"0", b"1", b"2"]
    answers = await asyncio.gather(
        *(
            v[1](functions.messages.SendVoteRequest(peer=channel, msg_id=msg.id, options=[o]))
            for v, o in zip(voters, choices, strict=True)
        )
    )
    for answer, choice in zip(answers, choices, strict=True):
        update = next(u for u in answer.updates if isinstance(u, types.UpdateMessagePoll))
        assert update.poll_id == poll_id
        assert [r.option for r in update.results.results if r.chosen] == [choice]
    expected = {b"0": 2, b"1": 1, b"2": 0}
    # The creator sees the final totals live (min results: no choice of theirs).
    await wait_for(lambda: any(_counts(u.results) == {**expected, b"2": 1} for u in seen))
    final = {b"0": 2, b"1": 1, b"2": 1}
    results = await a(functions.messages.GetPollResultsRequest(peer=channel, msg_id=msg.id, poll_hash=0))
    update = results.updates[0]
    assert _counts(update.results) == final and update.results.total_voters == 4
    assert not any(r.chosen for r in update.results.results)
    # History: per-viewer chosen flag and exact totals.
    hist = await voters[2][1](functions.channels.GetMessagesRequest(channel=channel, id=[msg.id]))
    shown = hist.messages[0].media.results
    assert _counts(shown) == final and [r.option for r in shown.results if r.chosen] == [b"1"]

    # The dialog list's top message shows the same view.
    v2 = voters[2][1]
    peer_dialogs = await v2(
        functions.messages.GetPeerDialogsRequest(
            peers=[types.InputDialogPeer(await v2.get_input_entity(channel))]
        )
    )
    top = peer_dialogs.messages[0].media.results
    assert _counts(top) == final and [r.option for r in top.results if r.chosen] == [b"1"]

    # Retract (empty list), then vote again for another option.
    v0 = voters[0][1]
    retract = await v0(functions.messages.SendVoteRequest(peer=channel, msg_id=msg.id, options=[]))
    assert _counts(retract.updates[0].results) == {b"0": 1, b"1": 1, b"2": 1}
    assert retract.updates[0].results.total_voters == 3
    with rpc_error("OPTIONS_TOO_MUCH"):
        await v0(functions.messages.SendVoteRequest(peer=channel, msg_id=msg.id, options=[b"0", b"1"]))
    with rpc_error("OPTION_INVALID"):
        await v0(functions.messages.SendVoteRequest(peer=channel, msg_id=msg.id, options=[b"9"]))
    await v0(functions.messages.SendVoteRequest(peer=channel, msg_id=msg.id, options=[b"2"]))

    # Public voters: paged, each voter once, all of them named in users.
    page = await a(functions.messages.GetPollVotesRequest(peer=channel, id=msg.id, limit=2))
    assert page.count == 4 and len(page.votes) == 2 and page.next_offset
    rest = await a(
        functions.messages.GetPollVotesRequest(peer=channel, id=msg.id, limit=2, offset=page.next_offset)
    )
    ids = [v.peer.user_id for v in page.votes + rest.votes]
    assert sorted(ids) == sorted(v[0].id for v in voters)
    assert {u.id for u in page.users + rest.users} == set(ids)
    only_zero = await a(
        functions.messages.GetPollVotesRequest(peer=channel, id=msg.id, option=b"0", limit=10)
    )
    assert only_zero.count == 1 and [v.peer.user_id for v in only_zero.votes] == [voters[1][0].id]

    # Forwarded to Saved Messages: the same poll, the same totals, still votable there.
    v3 = voters[3][1]
    fwd = await v3(
        functions.messages.ForwardMessagesRequest(
            from_peer=await v3.get_input_entity(channel), id=[msg.id], to_peer=types.InputPeerSelf(),
            random_id=[random.getrandbits(62)],
        )
    )  # fmt: skip
    copy = next(u.message for u in fwd.updates if isinstance(u, types.UpdateNewMessage))
    assert copy.media.poll.id == poll_id
    moved = await v3(
        functions.messages.SendVoteRequest(peer=types.InputPeerSelf(), msg_id=copy.id, options=[b"0"])
    )
    assert _counts(moved.updates[0].results) == {b"0": 2, b"1": 1, b"2": 1}
    await v3(functions.messages.SendVoteRequest(peer=types.InputPeerSelf(), msg_id=copy.id, options=[b"2"]))

    # Closing by edit: the creator only; then no more votes, everyone told.
    closed_poll = poll_media("Lunch?", ["pizza", "sushi", "salad"], public_voters=True, closed=True)
    with rpc_error("MESSAGE_AUTHOR_REQUIRED"):
        await voters[0][1](functions.messages.EditMessageRequest(peer=channel, id=msg.id, media=closed_poll))
    closed = await a(functions.messages.EditMessageRequest(peer=channel, id=msg.id, media=closed_poll))
    assert closed.updates[0].poll.closed
    with rpc_error("MESSAGE_POLL_CLOSED"):
        await voters[3][1](functions.messages.SendVoteRequest(peer=channel, msg_id=msg.id, options=[b"0"]))
    await wait_for(lambda: any(u.poll is not None and u.poll.closed for u in seen_by_voter))


async def test_quiz_answers_final_and_revealed_to_voters(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    channel = await _group(a, alice, [bob, carol])
    msg = _sent(
        await _send_poll(
            a,
            channel,
            poll_media("2+2?", ["3", "4", "5"], quiz=True, correct=[1], solution="Basic arithmetic"),
        )
    )
    assert msg.media.poll.quiz
    # Before voting, nobody but... nobody sees the correct answer.
    before = (await c(functions.channels.GetMessagesRequest(channel=channel, id=[msg.id]))).messages[0]
    assert (
        not any(r.correct for r in before.media.results.results or ()) and not before.media.results.solution
    )
    voted = await b(functions.messages.SendVoteRequest(peer=channel, msg_id=msg.id, options=[b"0"]))
    r = voted.updates[0].results
    assert [x.option for x in r.results if x.correct] == [b"1"] and r.solution == "Basic arithmetic"
    assert [x.option for x in r.results if x.chosen] == [b"0"]
    with rpc_error("REVOTE_NOT_ALLOWED"):
        await b(functions.messages.SendVoteRequest(peer=channel, msg_id=msg.id, options=[b"1"]))
    with rpc_error("REVOTE_NOT_ALLOWED"):
        await b(functions.messages.SendVoteRequest(peer=channel, msg_id=msg.id, options=[]))
    # An anonymous quiz never lists its voters.
    with rpc_error("BROADCAST_FORBIDDEN"):
        await a(functions.messages.GetPollVotesRequest(peer=channel, id=msg.id, limit=10))
    after = (await c(functions.channels.GetMessagesRequest(channel=channel, id=[msg.id]))).messages[0]
    assert after.media.results.total_voters == 1 and not after.media.results.solution
    assert isinstance(after.media, types.MessageMediaPoll)


async def test_poll_closes_at_close_date_in_private_chat(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    seen: list = []
    b.add_event_handler(collect(seen), events.Raw(types.UpdateMessagePoll))
    got: list = []
    b.add_event_handler(collect(got, "message"), events.NewMessage())
    await b.get_dialogs()
    peer = input_user(alice, bob)
    sent = await a(
        functions.messages.SendMediaRequest(
            peer=types.InputPeerUser(peer.user_id, peer.access_hash),
            media=poll_media("Quick?", ["yes", "no"], close_period=5),
            message="",
            random_id=7,
        )
    )
    msg = _sent(sent)
    assert msg.media.poll.close_period == 5 and msg.media.poll.close_date
    await wait_for(lambda: got)
    theirs = got[0]
    assert isinstance(theirs.media, types.MessageMediaPoll)
    alice_peer = types.InputPeerUser(alice.id, 0)
    from accounts_app.access import user_access_hash

    alice_peer = types.InputPeerUser(alice.id, user_access_hash(bob.id, alice.id))
    ans = await b(functions.messages.SendVoteRequest(peer=alice_peer, msg_id=theirs.id, options=[b"0"]))
    assert ans.updates[0].results.total_voters == 1
    # The server closes it at close_date and tells the chat.
    await wait_for(lambda: any(u.poll is not None and u.poll.closed for u in seen), timeout=15)
    with rpc_error("MESSAGE_POLL_CLOSED"):
        await b(functions.messages.SendVoteRequest(peer=alice_peer, msg_id=theirs.id, options=[b"1"]))
    hist = await a.get_messages(types.InputPeerUser(peer.user_id, peer.access_hash), ids=[msg.id])
    assert hist[0].media.poll.closed and hist[0].media.results.total_voters == 1


async def test_broadcast_polls_have_no_public_voters(edge_server, edge_db, clients):

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    channel = await _group(a, alice, [], broadcast=True)
    with rpc_error("POLL_PUBLIC_VOTERS_FORBIDDEN"):
        await _send_poll(a, channel, poll_media("Who?", ["a", "b"], public_voters=True))
    msg = _sent(await _send_poll(a, channel, poll_media("Which?", ["a", "b"], multiple_choice=True)))
    assert msg.media.poll.multiple_choice


async def test_kurigram_poll_quiz_dice_venue_contact(edge_server, edge_db, clients):
    """Kurigram's own high-level calls: a poll and a quiz in a group, votes from it and a
    Telethon member with exact totals, and a dice / venue / contact / location."""
    from pyrogram import enums
    from telethon import functions, types

    from tests.e2e.test_channels import make_live_kurigram, new_user

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, phone, code = await new_user("Bob")
    k = make_live_kurigram(edge_server, "bob_polls")
    await k.connect()
    try:
        sent_code = await k.send_code(phone)
        await k.sign_in(phone, sent_code.phone_code_hash, code)
        channel = await _group(a, alice, [bob])
        chat_id = -1_000_000_000_000 - channel.id
        [d async for d in k.get_dialogs()]
        poll = await k.send_poll(chat_id, "Best season?", ["spring", "summer", "autumn"], is_anonymous=False)
        assert [o.text.text for o in poll.poll.options] == ["spring", "summer", "autumn"]
        options = [x.option for x in (await a.get_messages(channel, ids=poll.id)).media.poll.answers]
        await a(functions.messages.SendVoteRequest(peer=channel, msg_id=poll.id, options=[options[2]]))
        voted = await k.vote_poll(chat_id, poll.id, [2])
        assert voted.total_voter_count == 2 and [o.voter_count for o in voted.options] == [0, 0, 2]
        seen = (await a(functions.channels.GetMessagesRequest(channel=channel, id=[poll.id]))).messages[0]
        assert seen.media.results.total_voters == 2 and {
            p.user_id for p in seen.media.results.recent_voters
        } == {
            alice.id,
            bob.id,
        }
        quiz = await k.send_poll(
            chat_id, "1+1?", ["1", "2"], type=enums.PollType.QUIZ, correct_option_ids=[1]
        )
        assert quiz.poll.type == enums.PollType.QUIZ
        options = [x.option for x in (await a.get_messages(channel, ids=quiz.id)).media.poll.answers]
        answer = await a(
            functions.messages.SendVoteRequest(peer=channel, msg_id=quiz.id, options=[options[1]])
        )
        r = answer.updates[0].results
        # (no explanation: Kurigram 2.2.26 flags an empty solution_entities it does not write)
        assert [x.option for x in r.results if x.correct] == [options[1]]

        dice = await k.send_dice(chat_id, "🎯")
        assert 1 <= dice.dice.value <= 6
        venue = await k.send_venue(chat_id, 40.7484, -73.9857, "Empire State Building", "20 W 34th St")
        assert venue.venue.title == "Empire State Building"
        contact = await k.send_contact(chat_id, "+15550100", "Carol", vcard="BEGIN:VCARD\nEND:VCARD")
        assert contact.contact.first_name == "Carol"
        loc = await k.send_location(chat_id, 51.5, -0.12)
        assert abs(loc.location.latitude - 51.5) < 1e-9
        shown = await a.get_messages(channel, ids=[dice.id, venue.id, contact.id, loc.id])
        assert isinstance(shown[0].media, types.MessageMediaDice) and shown[0].media.value == dice.dice.value
        assert isinstance(shown[1].media, types.MessageMediaVenue) and isinstance(
            shown[3].media, types.MessageMediaGeo
        )
    finally:
        await k.disconnect()


async def test_polls_in_forum_topic_and_discussion_thread_and_difference(edge_server, edge_db, clients):
    """A poll in a forum topic; a channel post's poll voted on in its discussion group
    (the same poll: the post shows the vote); a member who was away gets the changed
    poll from updates.getDifference."""
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)

    forum = await _group(a, alice, [bob])
    await a(
        functions.channels.ToggleForumRequest(
            types.InputChannel(forum.id, forum.access_hash), True, tabs=False
        )
    )
    upd = await a(functions.messages.CreateForumTopicRequest(peer=forum, title="Votes", random_id=77))
    topic = next(u.message for u in upd.updates if isinstance(u, types.UpdateNewChannelMessage)).id
    sent = await a(
        functions.messages.SendMediaRequest(
            peer=forum, media=poll_media("In the topic?", ["yes", "no"]), message="", random_id=78,
            reply_to=types.InputReplyToMessage(reply_to_msg_id=topic, top_msg_id=topic),
        )
    )  # fmt: skip
    in_topic = _sent(sent)
    assert in_topic.reply_to.forum_topic and isinstance(in_topic.media, types.MessageMediaPoll)
    await b.get_dialogs()
    await b(functions.messages.SendVoteRequest(peer=forum, msg_id=in_topic.id, options=[b"0"]))
    thread = await b(
        functions.messages.GetRepliesRequest(
            peer=forum,
            msg_id=topic,
            offset_id=0,
            offset_date=None,
            add_offset=0,
            limit=10,
            max_id=0,
            min_id=0,
            hash=0,
        )
    )
    shown = next(m for m in thread.messages if m.id == in_topic.id)
    assert shown.media.results.total_voters == 1 and [
        r.option for r in shown.media.results.results if r.chosen
    ] == [b"0"]

    news = (await a(functions.channels.CreateChannelRequest("News", "", broadcast=True))).chats[0]
    talk = await _group(a, alice, [bob])
    await a(functions.channels.InviteToChannelRequest(news, [input_user(alice, carol)]))
    assert await a(
        functions.channels.SetDiscussionGroupRequest(
            types.InputChannel(news.id, news.access_hash), types.InputChannel(talk.id, talk.access_hash)
        )
    )
    await c.get_dialogs()
    state = await c(functions.updates.GetStateRequest())
    post = _sent(await _send_poll(a, news, poll_media("Weekend plans?", ["hike", "read"])))
    await b.get_dialogs()
    history = await b(
        functions.messages.GetHistoryRequest(
            peer=talk, offset_id=0, offset_date=None, add_offset=0, limit=5, max_id=0, min_id=0, hash=0
        )
    )
    root = next(m for m in history.messages if m.fwd_from and m.fwd_from.saved_from_msg_id == post.id)
    assert root.media.poll.id == post.media.poll.id
    await b(functions.messages.SendVoteRequest(peer=talk, msg_id=root.id, options=[b"1"]))
    seen = (await c(functions.channels.GetMessagesRequest(channel=news, id=[post.id]))).messages[0]
    assert seen.media.results.total_voters == 1 and not any(r.chosen for r in seen.media.results.results)
    # Carol did not watch: the changed poll comes with her difference.
    diff = await c(functions.updates.GetDifferenceRequest(pts=state.pts, date=state.date, qts=0))
    polls_seen = [u for u in diff.other_updates if isinstance(u, types.UpdateMessagePoll)]
    assert any(u.poll_id == post.media.poll.id and u.results.total_voters == 1 for u in polls_seen)


async def test_close_date_announced_once_with_two_workers(two_workers, edge_db, clients):  # noqa: F811
    """Two listener processes both run the closing job: the poll closes once and its
    members hear it once."""
    from telethon import events, types

    alice, a, _, _ = await logged_in(two_workers, "Alice", clients)
    bob, b, _, _ = await logged_in(two_workers, "Bob", clients)
    channel = await _group(a, alice, [bob])
    seen: list = []
    b.add_event_handler(collect(seen), events.Raw(types.UpdateMessagePoll))
    await b.get_dialogs()
    msg = _sent(await _send_poll(a, channel, poll_media("Soon closed?", ["yes", "no"], close_period=5)))
    await wait_for(lambda: any(u.poll is not None and u.poll.closed for u in seen), timeout=15)
    await asyncio.sleep(2)  # a second close would have arrived by now
    assert sum(1 for u in seen if u.poll is not None and u.poll.closed) == 1
    shown = await a.get_messages(channel, ids=msg.id)
    assert shown.media.poll.closed
