"""The media, poll and chat methods' own rules, without a server: album composition,
message id lists, poll specs, reactions, invite link fields, the Bot API shapes of
media and polls, and logOut / close ending long polls."""

from __future__ import annotations

import asyncio

import pytest

from botapi_app import long_polls, media_shapes, methods_chat, methods_media, methods_polls
from botapi_app.errors import BadRequest, rights_text
from botapi_app.params import Params
from botapi_app.shapes import entities_out
from tl.errors import RpcError


def _album(*kinds: str) -> Params:
    return Params({"media": [{"type": k, "media": "x"} for k in kinds]})


def test_albums_take_2_to_10_items_and_keep_documents_and_audio_to_themselves():
    assert len(methods_media.input_media_list(_album("photo", "video"))) == 2
    assert len(methods_media.input_media_list(_album(*["document"] * 10))) == 10
    for bad, text in [
        (_album("photo"), "media group must include 2-10 items"),
        (_album(*["photo"] * 11), "media group must include 2-10 items"),
        (_album("photo", "document"), "document can't be mixed with other media types"),
        (_album("audio", "video"), "audio can't be mixed with other media types"),
        (_album("photo", "sticker"), 'unsupported media type "sticker" in a media group'),
        (Params({"media": '{"type": "photo"}'}), "can't parse media JSON object"),
    ]:
        with pytest.raises(BadRequest) as e:
            methods_media.input_media_list(bad)
        assert e.value.description == f"Bad Request: {text}"


@pytest.mark.parametrize(
    ("ids", "text"),
    [
        ([], "message identifiers are not specified"),
        ([1, "2"], "message identifiers are not specified"),
        (list(range(1, 102)), "too many messages"),
        ([3, 2], "message identifiers must be in a strictly increasing order"),
        ([2, 2], "message identifiers must be in a strictly increasing order"),
    ],
)
def test_forwarded_ids_are_1_to_100_strictly_increasing(ids, text):
    with pytest.raises(BadRequest, match=text):
        methods_media._message_ids(Params({"message_ids": ids}))


def test_new_file_attributes_follow_the_send():
    video, animated = methods_media._attributes("animation", {"width": "10", "height": 8, "duration": "2"})
    assert (video["w"], video["h"], video["duration"], animated) == (10, 8, 2.0, {"_": "animated"})
    (voice,) = methods_media._attributes("voice", {"duration": 4, "title": "ignored"})
    assert voice["voice"] and voice["duration"] == 4 and voice["title"] is None
    (audio,) = methods_media._attributes("audio", {"performer": "P", "title": "T"})
    assert not audio["voice"] and (audio["performer"], audio["title"]) == ("P", "T")
    with pytest.raises(BadRequest, match='"duration" must be of type Integer'):
        methods_media._attributes("video", {"duration": "long"})


def _poll(**values) -> Params:
    return Params({"question": "Q?", "options": ["a", "b"], **values})


def test_poll_specs_with_the_bot_apis_checks():
    spec = methods_polls.poll_spec(
        _poll(options=[{"text": "<b>x</b>", "text_parse_mode": "HTML"}, "y"], type="quiz", correct_option_id=1,
              explanation="because", is_anonymous="false", open_period=30),
        channel=False,
    )  # fmt: skip
    assert [a["text"] for a in spec["answers"]] == ["x", "y"]
    assert spec["answers"][0]["entities"] == [{"type": "bold", "offset": 0, "length": 1}]
    assert spec["quiz"] and spec["correct"] == [1] and spec["solution"] == "because"
    assert spec["public_voters"] and spec["close_period"] == 30
    assert methods_polls.poll_spec(_poll(type="quiz", correct_option_ids=[0]), channel=False)["correct"] == [
        0
    ]
    for values, channel, text in [
        ({"options": ["a"]}, False, "poll must have at least 2 option"),
        ({"options": [str(i) for i in range(11)]}, False, "poll can't have more than 10 options"),
        ({"question": " "}, False, "poll question must be non-empty"),
        ({"question": "q" * 301}, False, "poll question length must not exceed 300"),
        ({"options": ["a", ""]}, False, "poll options must be non-empty"),
        ({"options": ["a", "b" * 101]}, False, "poll options length must not exceed 100"),
        ({"type": "quiz"}, False, "wrong correct option ID specified"),
        ({"type": "quiz", "correct_option_id": 2}, False, "wrong correct option ID specified"),
        ({"type": "quiz", "correct_option_id": 0, "allows_multiple_answers": True}, False,
         "quiz poll can't allow multiple answers"),
        ({"is_anonymous": False}, True, "non-anonymous polls can't be sent to channel chats"),
        ({"type": "survey"}, False, "wrong poll type specified"),
        ({"open_period": 10, "close_date": 99}, False, "can't use open_period and close_date at the same time"),
    ]:  # fmt: skip
        with pytest.raises(BadRequest) as e:
            methods_polls.poll_spec(_poll(**values), channel=channel)
        assert e.value.description == f"Bad Request: {text}", values


def test_reactions_are_one_emoji_at_most():
    assert methods_polls._reactions(Params({})) == []
    assert methods_polls._reactions(Params({"reaction": '[{"type": "emoji", "emoji": "👍"}]'})) == ["👍"]
    two = [{"type": "emoji", "emoji": "👍"}, {"type": "emoji", "emoji": "🔥"}]
    for raw, text in [
        (two, "REACTIONS_TOO_MANY"),
        ([{"type": "custom_emoji", "custom_emoji_id": "1"}], "REACTION_INVALID"),
        ([{"type": "emoji"}], "can't parse ReactionType JSON object"),
        ({"type": "emoji"}, "can't parse reaction types JSON object"),
    ]:
        with pytest.raises(BadRequest, match=text):
            methods_polls._reactions(Params({"reaction": raw}))


def test_invite_link_fields():
    assert methods_chat._link_fields(Params({"name": "Team", "member_limit": "10", "expire_date": 0})) == {
        "title": "Team",
        "usage_limit": 10,
        "request_needed": False,
        "expire_date": 0,
    }
    for values, text in [
        ({"name": "n" * 33}, "invite link name is too long"),
        ({"member_limit": 100000}, "member limit must be between 1 and 99999"),
        ({"member_limit": 5, "creates_join_request": True}, "member limit can't be specified"),
    ]:
        with pytest.raises(BadRequest, match=text):
            methods_chat._link_fields(Params(values))


def test_rights_text_names_what_the_bot_may_not_do():
    with pytest.raises(BadRequest) as e, rights_text("manage chat invite links"):
        raise RpcError(400, "CHAT_ADMIN_REQUIRED")
    assert e.value.description == "Bad Request: not enough rights to manage chat invite links"
    with pytest.raises(RpcError), rights_text("x"):
        raise RpcError(400, "USER_ID_INVALID")  # other errors pass through


def test_document_kinds_in_bot_api_shapes():
    doc = {"id": 5, "access_hash": 7, "mime_type": "audio/ogg", "size": 10,
           "attributes": [{"_": "audio", "voice": True, "duration": 3}]}  # fmt: skip
    voice = media_shapes.document_fields(doc, "voice")["voice"]
    assert voice["duration"] == 3 and voice["mime_type"] == "audio/ogg" and "file_name" not in voice
    gif = {**doc, "mime_type": "video/mp4", "attributes": [{"_": "video", "w": 4, "h": 3, "duration": 1.5},
                                                           {"_": "animated"}, {"_": "filename", "file_name": "a.mp4"}]}  # fmt: skip
    shown = media_shapes.document_fields(gif, "gif")
    assert (shown["animation"]["width"], shown["animation"]["duration"]) == (4, 1)
    assert shown["document"]["file_name"] == "a.mp4"  # kept for bots that predate animations
    sticker = {**doc, "mime_type": "image/webp", "attributes": [{"_": "sticker", "alt": "😀"},
                                                                {"_": "image_size", "w": 512, "h": 256}]}  # fmt: skip
    s = media_shapes.document_fields(sticker, "sticker")["sticker"]
    assert (s["emoji"], s["width"], s["height"], s["is_animated"], s["type"]) == (
        "😀",
        512,
        256,
        False,
        "regular",
    )
    assert media_shapes.document_fields({**doc, "attributes": []}, "voice") == {
        "document": media_shapes.files.document({**doc, "attributes": []})
    }


def test_poll_shape_shows_a_quiz_answer_only_where_the_bot_api_does():
    class Row:
        closed = False
        correct = ["31"]
        solution = "why"
        solution_entities = []

    snapshot = {"id": 9, "question": "Q", "answers": [{"option": "30", "text": "a"}, {"option": "31", "text": "b"}],
                "quiz": True, "public_voters": False, "multiple_choice": False, "close_period": 0, "close_date": 0}  # fmt: skip
    results = {"counts": {"31": 2}, "total": 2, "closed": False}
    hidden = media_shapes.poll(snapshot, results, Row(), entities_out, reveal=False)
    assert "correct_option_id" not in hidden and "explanation" not in hidden
    assert [o["voter_count"] for o in hidden["options"]] == [0, 2] and hidden["type"] == "quiz"
    assert hidden["id"] == "9" and hidden["is_anonymous"] and not hidden["allows_revoting"]
    shown = media_shapes.poll(snapshot, results, Row(), entities_out, reveal=True)
    assert (
        shown["correct_option_id"] == 1
        and shown["correct_option_ids"] == [1]
        and shown["explanation"] == "why"
    )
    Row.closed = True
    assert media_shapes.poll(snapshot, results, Row(), entities_out, reveal=False)["correct_option_id"] == 1


async def test_close_ends_a_waiting_long_poll_and_nothing_else():
    never = asyncio.Event()

    async def long_poll():
        await never.wait()
        return ["not reached"]

    waiting = asyncio.create_task(long_polls.until_closed(1, long_poll()))
    other = asyncio.create_task(long_polls.until_closed(2, long_poll()))
    await asyncio.sleep(0.01)
    long_polls.end_polls(1)
    assert await asyncio.wait_for(waiting, 1) == []
    assert not other.done()
    other.cancel()

    async def quick():
        return ["update"]

    assert await long_polls.until_closed(1, quick()) == ["update"]
    assert long_polls._polls == {}


def test_value_media_in_bot_api_shapes():
    geo = {"lat": 1.5, "long": 2.5, "access_hash": 1, "accuracy_radius": 20}
    assert media_shapes.value_fields({"kind": "dice", "dice": {"emoticon": "🎲", "value": 3}}) == {
        "dice": {"emoji": "🎲", "value": 3}
    }
    assert media_shapes.value_fields({"kind": "geo", "geo": geo}) == {
        "location": {"latitude": 1.5, "longitude": 2.5, "horizontal_accuracy": 20.0}
    }
    live = media_shapes.value_fields({"kind": "geo_live", "geo": geo, "live": {"period": 900, "heading": 90}})
    assert live["location"]["live_period"] == 900 and live["location"]["heading"] == 90
    venue = {"kind": "venue", "geo": geo, "venue": {"title": "T", "address": "A", "provider": "gplaces",
                                                    "venue_id": "g1", "venue_type": "cafe"}}  # fmt: skip
    shown = media_shapes.value_fields(venue)
    assert shown["venue"]["google_place_id"] == "g1" and shown["venue"]["google_place_type"] == "cafe"
    assert shown["location"] == shown["venue"]["location"]
    contact = {"kind": "contact", "contact": {"phone_number": "+1", "first_name": "F", "last_name": "",
                                              "vcard": "", "user_id": 0}}  # fmt: skip
    assert media_shapes.value_fields(contact) == {"contact": {"phone_number": "+1", "first_name": "F"}}


def test_forward_origin_names_the_hidden_user_by_name():
    from botapi_app.forward_shapes import forward_origin

    hidden = forward_origin({"date": 5, "from_name": "Secret Sam"}, {}, lambda u: {"id": u.id})
    assert hidden == {"type": "hidden_user", "date": 5, "sender_user_name": "Secret Sam"}
    assert forward_origin({"date": 5}, {}, lambda u: {"id": u.id}) is None


async def test_a_long_poll_whose_client_left_stops_waiting():
    started, stopped = asyncio.Event(), asyncio.Event()

    async def long_poll():
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()

    waiting = asyncio.create_task(long_polls.until_closed(3, long_poll()))
    await started.wait()
    waiting.cancel()
    await asyncio.wait_for(stopped.wait(), 1)
    assert long_polls._polls == {}
