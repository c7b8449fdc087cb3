"""The Bot API's sendPoll / stopPoll (polls_app's rules, the push path's poll updates)
and setMessageReaction (the chat kinds' reaction actions)."""

from __future__ import annotations

from edge_app.orm_threads import in_thread
from polls_app import actions as polls
from private_app import actions as private
from tl.errors import RpcError

from . import media_shapes, methods_media, parse_mode, shapes
from .errors import BadRequest
from .methods import (
    BotRef,
    _channel_member_chat,
    _channel_of,
    _markup,
    _private_peer,
    _random_id,
    _render,
    _render_channel,
    _reply_to,
    method,
)
from .params import Params

OPTIONS_MIN, OPTIONS_MAX = 2, 10  # the Bot API's bounds (polls_app allows up to 12)
QUESTION_MAX = 300
OPTION_MAX = 100
EXPLANATION_MAX = 200
REACTIONS_MAX = 1  # a bot reacts as a non-premium user: one reaction a message


def _text(text: str, mode, raw_entities, what: str) -> tuple[str, list[dict]]:
    parsed = parse_mode.parse(text, mode)
    if parsed is not None:
        return parsed
    if raw_entities is not None and not isinstance(raw_entities, list):
        raise BadRequest(f"can't parse {what} entities JSON object")
    return text, shapes.entities_in(raw_entities or [])


def _options(p: Params) -> list[dict]:
    raw = p.json("options")
    if not isinstance(raw, list):
        raise BadRequest("can't parse options JSON object")
    if len(raw) < OPTIONS_MIN:
        raise BadRequest("poll must have at least 2 option")
    if len(raw) > OPTIONS_MAX:
        raise BadRequest(f"poll can't have more than {OPTIONS_MAX} options")
    out = []
    for i, o in enumerate(raw):
        if isinstance(o, str):  # the older form: plain strings
            o = {"text": o}
        if not isinstance(o, dict):
            raise BadRequest("can't parse InputPollOption JSON object")
        text, entities = _text(
            str(o.get("text") or ""), o.get("text_parse_mode"), o.get("text_entities"), "option"
        )
        if not text.strip():
            raise BadRequest("poll options must be non-empty")
        if len(text) > OPTION_MAX:
            raise BadRequest(f"poll options length must not exceed {OPTION_MAX}")
        out.append({"text": text, "entities": entities, "option": str(i).encode()})
    return out


def poll_spec(p: Params, *, channel: bool) -> dict:
    """The polls_app spec of a sendPoll, with the Bot API's checks and words."""
    question, q_entities = _text(
        p.str("question") or "", p.str("question_parse_mode"), p.json("question_entities"), "question"
    )
    if not question.strip():
        raise BadRequest("poll question must be non-empty")
    if len(question) > QUESTION_MAX:
        raise BadRequest(f"poll question length must not exceed {QUESTION_MAX}")
    answers = _options(p)
    kind = p.str("type") or "regular"
    if kind not in ("regular", "quiz"):
        raise BadRequest("wrong poll type specified")
    quiz = kind == "quiz"
    anonymous = p.bool("is_anonymous", default=True)
    if not anonymous and channel:
        raise BadRequest("non-anonymous polls can't be sent to channel chats")
    multiple = p.bool("allows_multiple_answers")
    if quiz and multiple:
        raise BadRequest("quiz poll can't allow multiple answers")
    correct = []
    if quiz:
        cid = p.int("correct_option_id")
        many = p.json("correct_option_ids")  # the newer Bot API's list form
        if cid is None and isinstance(many, list):
            if len(many) != 1 or not isinstance(many[0], int):
                raise BadRequest("quiz poll must have exactly one correct option")
            cid = many[0]
        if cid is None or not 0 <= cid < len(answers):
            raise BadRequest("wrong correct option ID specified")
        correct = [cid]
    explanation, e_entities = ("", [])
    if quiz and p.has("explanation"):
        explanation, e_entities = _text(
            p.str("explanation") or "", p.str("explanation_parse_mode"), p.json("explanation_entities"),
            "explanation",
        )  # fmt: skip
        if len(explanation) > EXPLANATION_MAX:
            raise BadRequest(f"poll explanation length must not exceed {EXPLANATION_MAX}")
    period = p.int("open_period", default=0) or 0
    close_date = p.int("close_date", default=0) or 0
    if period and close_date:
        raise BadRequest("can't use open_period and close_date at the same time")
    return {
        "question": question, "question_entities": q_entities, "answers": answers, "quiz": quiz,
        "multiple_choice": multiple, "public_voters": not anonymous, "closed": False, "close_period": period,
        "close_date": close_date, "correct": correct, "solution": explanation, "solution_entities": e_entities,
    }  # fmt: skip


@method("sendPoll")
async def send_poll(bot: BotRef, p: Params):
    channel_id = _channel_of(p.chat_id())
    chat = await _channel_member_chat(bot.id, channel_id) if channel_id is not None else None
    peer = None if channel_id is not None else await _private_peer(bot, p)
    broadcast = bool(chat and chat["type"] == "channel")
    spec = poll_spec(p, channel=broadcast)
    try:
        snapshot = await polls.do_create_poll(bot.id, spec, broadcast=broadcast)
    except RpcError as exc:
        if exc.message == "MEDIA_INVALID" and (spec["close_period"] or spec["close_date"]):
            raise BadRequest("wrong open_period or close_date specified: 5-600 seconds") from None
        raise
    media = {"kind": "poll", "poll": snapshot}
    kwargs = {
        "media": media,
        "reply_to_msg_id": _reply_to(p),
        "silent": p.bool("disable_notification"),
        "reply_markup": _markup(p),
    }
    if channel_id is not None:
        from channels_app.actions.messages import do_send_message

        change = await do_send_message(
            bot.id, channel_id, "", _random_id(), noforwards=p.bool("protect_content"), **kwargs
        )
        message = change.events[0].message
    else:
        change = await private.do_send_private_message(bot.id, peer.id, "", _random_id(), **kwargs)
        message = change.messages[0]
    if p.bool("is_closed"):
        await _close(bot.id, snapshot["id"])
    if channel_id is not None:
        return await _render_channel(message, chat)
    return await _render(message)


async def _close(bot_id: int, poll_id: int) -> bool:
    from messages_app import poll_push

    closed = await polls.do_close_poll(poll_id, bot_id)
    if closed:
        await poll_push.publish_change(poll_id, bot_id)
    return closed


@in_thread
def _poll_view(poll_id: int) -> dict:
    from polls_app.models import Poll

    row = Poll.objects.get(id=poll_id)
    snapshot = polls.snapshot(row)
    results = polls.results_of([poll_id], 0).get(poll_id)
    return media_shapes.poll(snapshot, results, row, shapes.entities_out, reveal=True)


@method("stopPoll")
async def stop_poll(bot: BotRef, p: Params):
    channel_id, msg_id, media = await methods_media.message_media(
        bot, p, "message with poll to stop not found"
    )
    poll_id = polls.poll_id_of(media)
    if poll_id is None:
        raise BadRequest("message with poll to stop not found")
    try:
        closed = await _close(bot.id, poll_id)
    except RpcError as exc:
        if exc.message == "MESSAGE_AUTHOR_REQUIRED":
            raise BadRequest("poll can't be stopped") from None
        raise
    if not closed:
        raise BadRequest("poll has already been closed")
    if p.has("reply_markup"):
        if channel_id is not None:
            from channels_app.actions.messages import do_edit_message

            await do_edit_message(bot.id, channel_id, msg_id, None, None, reply_markup=_markup(p))
        else:
            peer = await _private_peer(bot, p)
            await private.do_edit_private_message(
                bot.id, peer.id, msg_id, None, None, reply_markup=_markup(p)
            )
    return await _poll_view(poll_id)


# --- reactions ------------------------------------------------------------------------------------


def _reactions(p: Params) -> list[str]:
    raw = p.json("reaction")
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
        raise BadRequest("can't parse reaction types JSON object")
    out = []
    for r in raw:
        kind = r.get("type")
        if kind == "emoji" and isinstance(r.get("emoji"), str) and r["emoji"]:
            out.append(r["emoji"])
        elif kind in ("custom_emoji", "paid"):
            raise BadRequest("REACTION_INVALID")
        else:
            raise BadRequest("can't parse ReactionType JSON object")
    if len(out) > REACTIONS_MAX:
        raise BadRequest("REACTIONS_TOO_MANY")
    return out


@method("setMessageReaction")
async def set_message_reaction(bot: BotRef, p: Params):
    reactions = _reactions(p)
    big = p.bool("is_big")
    channel_id = _channel_of(p.chat_id())
    msg_id = p.int("message_id", required=True)
    try:
        if channel_id is not None:
            from channels_app.actions.reactions import do_send_reaction

            await _channel_member_chat(bot.id, channel_id)
            await do_send_reaction(bot.id, channel_id, msg_id, reactions, big=big)
        else:
            peer = await _private_peer(bot, p)
            await private_reaction(bot.id, peer.id, msg_id, reactions, big)
    except RpcError as exc:
        if exc.message == "MESSAGE_ID_INVALID":
            raise BadRequest("message to react not found") from None
        raise
    return True


async def private_reaction(bot_id: int, peer_id: int, msg_id: int, reactions: list[str], big: bool) -> None:
    from private_app.reactions import do_send_private_reaction

    await do_send_private_reaction(bot_id, peer_id, msg_id, reactions, big=big)
