"""Polls in TL: inputMediaPoll as a plain spec, updateMessagePoll, votes lists."""

from __future__ import annotations

from media_app.tl_convert_kinds import poll_results_to_tl, poll_to_tl
from message_core.tl_convert import entities_from_tl
from tl import types


def _text(t) -> tuple[str, list[dict]]:
    if isinstance(t, types.TextWithEntities):
        return t.text or "", entities_from_tl(t.entities)
    return str(t or ""), []  # older layers: a plain string


def poll_spec(media: types.InputMediaPoll) -> dict:
    p = media.poll
    question, q_entities = _text(p.question)
    answers = []
    for i, a in enumerate(p.answers or ()):
        text, entities = _text(a.text)
        # inputPollAnswer (layer 229 clients) leaves the option bytes to the server.
        option = getattr(a, "option", None)
        answers.append(
            {
                "text": text,
                "entities": entities,
                "option": bytes(option) if option is not None else str(i).encode(),
            }
        )
    correct = []
    for c in media.correct_answers or ():
        if isinstance(c, bytes | bytearray):  # before layer 204: the option bytes
            matches = [i for i, a in enumerate(answers) if a["option"] == bytes(c)]
            correct.append(matches[0] if matches else -1)
        else:
            correct.append(int(c))
    return {
        "question": question, "question_entities": q_entities, "answers": answers, "quiz": bool(p.quiz),
        "multiple_choice": bool(p.multiple_choice), "public_voters": bool(p.public_voters),
        "closed": bool(p.closed), "close_period": p.close_period or 0, "close_date": p.close_date or 0,
        "correct": correct, "solution": media.solution or "", "solution_entities": entities_from_tl(media.solution_entities),
    }  # fmt: skip


def poll_update_to_tl(snapshot: dict, results: dict, *, min_: bool = False):
    """updateMessagePoll: the poll and its results (``min_``: totals only)."""
    return types.UpdateMessagePoll(
        poll_id=snapshot["id"],
        poll=poll_to_tl(snapshot, bool(results.get("closed"))),
        results=poll_results_to_tl(snapshot, results, min_=min_),
    )


def votes_list_to_tl(
    count: int, votes: list[tuple[int, list[str], int]], users: list, next_offset, *, multiple: bool
):
    out = []
    for user_id, options, date in votes:
        peer = types.PeerUser(user_id=user_id)
        if multiple and len(options) != 1:
            out.append(
                types.MessagePeerVoteMultiple(
                    peer=peer, options=[bytes.fromhex(o) for o in options], date=date
                )
            )
        else:
            out.append(types.MessagePeerVote(peer=peer, option=bytes.fromhex(options[0]), date=date))
    return types.messages.VotesList(count=count, votes=out, chats=[], users=users, next_offset=next_offset)
