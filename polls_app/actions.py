"""Poll domain actions: creation rules, votes (one row per voter and option, so the
totals are counts of rows and exact whatever the concurrency), results as one viewer
sees them, voters of public polls, closing (by the creator's edit or at close_date).

The message's media keeps ``snapshot()`` (fixed at creation); ``attach_results`` gives
a page of messages the changing part for one viewer."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from django.db import connection, transaction
from django.db.models import Max, Min, Q

from edge_app.alarm import Alarm
from edge_app.orm_threads import in_thread
from message_core.clock import now
from message_core.text import validate_text
from tl.errors import (
    BroadcastForbiddenError,
    MediaInvalidError,
    MessageAuthorRequiredError,
    MessagePollClosedError,
    MessageTooLongError,
    OffsetInvalidError,
    OptionInvalidError,
    OptionsTooMuchError,
    PollAnswerInvalidError,
    PollAnswersInvalidError,
    PollOptionDuplicateError,
    PollOptionInvalidError,
    PollPublicVotersForbiddenError,
    PollQuestionInvalidError,
    PollVoteRequiredError,
    QuizCorrectAnswerInvalidError,
    QuizCorrectAnswersEmptyError,
    QuizCorrectAnswersTooMuchError,
    QuizMultipleInvalidError,
    RevoteNotAllowedError,
    RpcError,
)

from .models import Poll, PollVote

ANSWERS_MIN, ANSWERS_MAX = 2, 12
QUESTION_MAX = 255
ANSWER_MAX = 100
OPTION_BYTES_MAX = 100
SOLUTION_MAX = 200
CLOSE_PERIOD_MIN, CLOSE_PERIOD_MAX = 5, 600
RECENT_VOTERS = 3
VOTES_PAGE_MAX = 50


def _wrap(error):
    """validate_text's errors, answered as the poll's own (Telegram names the field)."""

    def check(text: str, entities: list[dict]) -> list[dict]:
        try:
            return validate_text(text, entities)
        except RpcError:
            raise error() from None

    return check


def check_poll(spec: dict, *, broadcast: bool = False) -> dict:
    """Telegram's rules for a new poll (``spec`` from ``tl_convert.poll_spec``); the
    clean spec, close_period turned into a close_date. Nothing is written."""
    # Kept as sent (entity offsets count from its first character); blank is empty.
    question = spec.get("question") or ""
    if not question.strip() or len(question) > QUESTION_MAX:
        raise PollQuestionInvalidError()
    q_entities = _wrap(PollQuestionInvalidError)(question, spec.get("question_entities"))
    answers = spec.get("answers") or []
    if not ANSWERS_MIN <= len(answers) <= ANSWERS_MAX:
        raise PollAnswersInvalidError()
    seen, clean = set(), []
    for a in answers:
        text = a.get("text") or ""
        if not text.strip() or len(text) > ANSWER_MAX:
            raise PollAnswerInvalidError()
        option = a.get("option") or b""
        if not 0 < len(option) <= OPTION_BYTES_MAX:
            raise PollOptionInvalidError()
        if option in seen:
            raise PollOptionDuplicateError()
        seen.add(option)
        entities = _wrap(PollAnswerInvalidError)(text, a.get("entities"))
        clean.append({"option": option.hex(), "text": text, "entities": entities})
    quiz, multiple = bool(spec.get("quiz")), bool(spec.get("multiple_choice"))
    correct: list[str] = []
    if quiz:
        if multiple:
            raise QuizMultipleInvalidError()
        picks = spec.get("correct") or []
        if not picks:
            raise QuizCorrectAnswersEmptyError()
        if len(picks) > 1:
            raise QuizCorrectAnswersTooMuchError()
        if not 0 <= picks[0] < len(clean):
            raise QuizCorrectAnswerInvalidError()
        correct = [clean[picks[0]]["option"]]
    elif spec.get("correct"):
        raise MediaInvalidError()  # correct answers belong to quizzes
    solution = (spec.get("solution") or "") if quiz else ""
    if len(solution) > SOLUTION_MAX:
        raise MessageTooLongError()
    s_entities = validate_text(solution, spec.get("solution_entities"), allow_empty=True) if solution else []
    if spec.get("public_voters") and broadcast:
        raise PollPublicVotersForbiddenError()
    if spec.get("closed"):
        raise MediaInvalidError()  # a poll is created open
    period, close_date, t = int(spec.get("close_period") or 0), int(spec.get("close_date") or 0), now()
    if period and not CLOSE_PERIOD_MIN <= period <= CLOSE_PERIOD_MAX:
        raise MediaInvalidError()
    if close_date and not t + CLOSE_PERIOD_MIN <= close_date <= t + CLOSE_PERIOD_MAX + 5:
        raise MediaInvalidError()
    if period and not close_date:
        close_date = t + period
    elif close_date and not period:
        period = close_date - t
    return {
        "question": question, "question_entities": q_entities, "answers": clean, "quiz": quiz,
        "multiple_choice": multiple, "public_voters": bool(spec.get("public_voters")), "correct": correct,
        "solution": solution, "solution_entities": s_entities, "close_period": period, "close_date": close_date,
    }  # fmt: skip


def snapshot(p: Poll) -> dict:
    """What a message's media keeps of its poll: the parts that never change (the
    quiz's correct answer and solution stay out: only voters see them)."""
    return {
        "id": p.id, "question": p.question, "question_entities": p.question_entities, "answers": p.answers,
        "quiz": p.quiz, "multiple_choice": p.multiple_choice, "public_voters": p.public_voters,
        "close_period": p.close_period, "close_date": p.close_date,
    }  # fmt: skip


def _stamp() -> datetime:
    return datetime.now(tz=UTC)


@in_thread
def do_create_poll(creator_id: int, spec: dict, *, broadcast: bool = False) -> dict:
    """A checked poll stored; its snapshot for the message's media."""
    clean = check_poll(spec, broadcast=broadcast)
    p = Poll.objects.create(
        id=secrets.randbits(62) + 1, creator_id=creator_id, date=now(), updated_at=_stamp(), **clean
    )
    if p.close_date:
        close_alarm.ring()
    return snapshot(p)


def _is_closed(p: Poll, t: int | None = None) -> bool:
    return p.closed or bool(p.close_date and p.close_date <= (t or now()))


@in_thread
def do_send_vote(poll_id: int, voter_id: int, options: list[bytes]) -> None:
    """The voter's choice replaces their earlier one (an empty list retracts it). A
    quiz answer is final. The poll row is locked for the change, so a vote and the
    poll's closing never cross and a voter's two devices cannot both vote."""
    if len(options) > ANSWERS_MAX:
        raise OptionsTooMuchError()
    with transaction.atomic():
        p = Poll.objects.select_for_update().filter(id=poll_id).first()
        if p is None:
            raise OptionInvalidError()
        if _is_closed(p):
            raise MessagePollClosedError()
        chosen = list(dict.fromkeys(bytes(o).hex() for o in options))
        if len(chosen) > 1 and not p.multiple_choice:
            raise OptionsTooMuchError()
        valid = {a["option"] for a in p.answers}
        if any(o not in valid for o in chosen):
            raise OptionInvalidError()
        mine = PollVote.objects.filter(poll_id=poll_id, user_id=voter_id)
        if p.quiz and mine.exists():
            raise RevoteNotAllowedError()
        mine.delete()
        t = now()
        PollVote.objects.bulk_create(
            [PollVote(poll_id=poll_id, user_id=voter_id, option=o, date=t) for o in chosen]
        )
        Poll.objects.filter(id=poll_id).update(updated_at=_stamp())


@in_thread
def do_close_poll(poll_id: int, actor_id: int) -> bool:
    """The creator closes the poll (editMessage with a closed poll). False: it was
    closed already."""
    with transaction.atomic():
        p = Poll.objects.select_for_update().filter(id=poll_id).first()
        if p is None:
            raise MediaInvalidError()
        if p.creator_id != actor_id:
            raise MessageAuthorRequiredError()
        if p.closed:
            return False
        Poll.objects.filter(id=poll_id).update(closed=True, updated_at=_stamp())
        return True


def close_due(limit: int = 100) -> list[int]:
    """Polls whose close_date has passed, closed once whatever the number of workers
    running this: each claims its rows with SKIP LOCKED. The ids closed now."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            "WITH due AS (SELECT id FROM polls WHERE NOT closed AND close_date > 0 AND close_date <= %s"
            " ORDER BY close_date LIMIT %s FOR UPDATE SKIP LOCKED)"
            " UPDATE polls p SET closed = TRUE, updated_at = now() FROM due WHERE p.id = due.id RETURNING p.id",
            [now(), limit],
        )
        return [r[0] for r in cur.fetchall()]


def close_due_and_next(limit: int = 100) -> tuple[list[int], int | None]:
    """``close_due``, and the earliest close_date still ahead (None: none): when the
    closing job must look again."""
    closed = close_due(limit)
    ahead = Poll.objects.filter(closed=False, close_date__gt=0).aggregate(n=Min("close_date"))["n"]
    return closed, ahead


# --- results --------------------------------------------------------------------------


def results_of(poll_ids: list[int], viewer_id: int) -> dict[int, dict]:
    """Each poll's results as ``viewer_id`` sees them: counts per option, total voters,
    the viewer's choice, the quiz's answer and solution once the viewer voted or the
    poll closed, the newest voters of a public poll."""
    ids = sorted(set(poll_ids))
    if not ids:
        return {}
    polls = {p.id: p for p in Poll.objects.filter(id__in=ids)}
    counts: dict[int, dict[str, int]] = {}
    totals: dict[int, int] = {}
    chosen: dict[int, list[str]] = {}
    recent: dict[int, list[int]] = {}
    with connection.cursor() as cur:
        cur.execute(
            "SELECT poll_id, option, count(*) FROM poll_votes WHERE poll_id = ANY(%s) GROUP BY poll_id, option",
            [ids],
        )
        for pid, option, n in cur.fetchall():
            counts.setdefault(pid, {})[option] = n
        cur.execute(
            "SELECT poll_id, count(DISTINCT user_id) FROM poll_votes WHERE poll_id = ANY(%s) GROUP BY poll_id",
            [ids],
        )
        totals = dict(cur.fetchall())
        cur.execute(
            "SELECT poll_id, option FROM poll_votes WHERE poll_id = ANY(%s) AND user_id = %s",
            [ids, viewer_id],
        )
        for pid, option in cur.fetchall():
            chosen.setdefault(pid, []).append(option)
        public = [pid for pid, p in polls.items() if p.public_voters]
        if public:
            cur.execute(
                "SELECT poll_id, user_id FROM (SELECT poll_id, user_id, max(date) AS d,"
                " row_number() OVER (PARTITION BY poll_id ORDER BY max(date) DESC, user_id DESC) AS n"
                " FROM poll_votes WHERE poll_id = ANY(%s) GROUP BY poll_id, user_id) x WHERE n <= %s"
                " ORDER BY poll_id, n",
                [public, RECENT_VOTERS],
            )
            for pid, uid in cur.fetchall():
                recent.setdefault(pid, []).append(uid)
    t = now()
    out = {}
    for pid, p in polls.items():
        closed = _is_closed(p, t)
        reveal = p.quiz and (pid in chosen or closed)
        out[pid] = {
            "closed": closed,
            "total": totals.get(pid, 0),
            "counts": counts.get(pid, {}),
            "chosen": chosen.get(pid, []),
            "correct": p.correct if reveal else [],
            "solution": p.solution if reveal else "",
            "solution_entities": p.solution_entities if reveal else [],
            "recent": recent.get(pid, []),
            "voted": pid in chosen,
        }
    return out


def poll_id_of(media: dict | None) -> int | None:
    if media and media.get("kind") == "poll" and media.get("poll"):
        return int(media["poll"]["id"])
    return None


def _with_poll(messages) -> list[dict]:
    return [m for m in messages if m and not m.get("empty") and poll_id_of(m.get("media")) is not None]


def attach_results(viewer_id: int, messages: list[dict]) -> None:
    """Give each message holding a poll the results ``viewer_id`` sees (the media dict
    is copied: pages may share rows between viewers). Viewer 0: the totals everyone
    sees, rendered as a ``min`` result (a push to many: each client keeps its choice)."""
    with_poll = _with_poll(messages)
    if not with_poll:
        return
    found = results_of([poll_id_of(m["media"]) for m in with_poll], viewer_id)
    for m in with_poll:
        r = found.get(poll_id_of(m["media"]))
        if r is not None:
            m["media"] = {**m["media"], "results": {**r, "min": not viewer_id}}


async def attach_results_async(viewer_id: int, messages: list[dict]) -> None:
    """``attach_results`` from async code: no thread hop for a page without polls."""
    if _with_poll(messages):
        await in_thread(attach_results)(viewer_id, messages)


results_of_async = in_thread(results_of)


@in_thread
def get_votes(
    poll_id: int, viewer_id: int, option: bytes | None, offset: str, limit: int, *, broadcast: bool
):
    """messages.getPollVotes: (count, [(user_id, [hex options], date)], next_offset) of a
    public poll, newest first, ``limit`` voters a page (offset: "date:user_id")."""
    p = Poll.objects.filter(id=poll_id).first()
    if p is None or broadcast or not p.public_voters:
        raise BroadcastForbiddenError()  # an anonymous poll's voters are never shown
    voted = PollVote.objects.filter(poll_id=poll_id, user_id=viewer_id).exists()
    if not (voted or _is_closed(p) or p.creator_id == viewer_id):
        raise PollVoteRequiredError()
    limit = max(0, min(limit, VOTES_PAGE_MAX))
    rows = PollVote.objects.filter(poll_id=poll_id)
    if option is not None:
        if option.hex() not in {a["option"] for a in p.answers}:
            raise OptionInvalidError()
        rows = rows.filter(option=option.hex())
    with connection.cursor() as cur:
        if option is not None:
            count = rows.count()
        else:
            cur.execute("SELECT count(DISTINCT user_id) FROM poll_votes WHERE poll_id = %s", [poll_id])
            count = cur.fetchone()[0]
    # One entry per voter: their newest row's date, all their options.
    voters = rows.values("user_id").order_by()
    voters = voters.annotate(d=Max("date")).order_by("-d", "-user_id")
    if offset:
        try:
            d, u = (int(x) for x in offset.split(":", 1))
        except ValueError:
            raise OffsetInvalidError() from None
        voters = voters.filter(Q(d__lt=d) | Q(d=d, user_id__lt=u))
    page = list(voters[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    options: dict[int, list[str]] = {}
    for uid, o in PollVote.objects.filter(
        poll_id=poll_id, user_id__in=[v["user_id"] for v in page]
    ).values_list("user_id", "option"):
        options.setdefault(uid, []).append(o)
    out = [(v["user_id"], sorted(options.get(v["user_id"], [])), v["d"]) for v in page]
    next_offset = f"{page[-1]['d']}:{page[-1]['user_id']}" if more and page else None
    return count, out, next_offset


def changed_for(user_id: int, channel_ids: list[int], since: datetime, limit: int = 100) -> list[int]:
    """Polls the user can see (held by their private chats or by these channels) whose
    results changed since ``since`` (its second included: a client's state date is whole
    seconds), newest first, at most ``limit``."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT p.id FROM polls p WHERE p.updated_at >= %s AND EXISTS (SELECT 1 FROM media_holders h"
            " WHERE h.kind = 'l' AND h.media_id = p.id AND ((h.holder = 'u' AND h.holder_id = %s)"
            " OR (h.holder = 'c' AND h.holder_id = ANY(%s)))) ORDER BY p.updated_at DESC LIMIT %s",
            [since, user_id, list(channel_ids), limit],
        )
        return [r[0] for r in cur.fetchall()]


@in_thread
def load_snapshot(poll_id: int) -> dict | None:
    p = Poll.objects.filter(id=poll_id).first()
    return snapshot(p) if p is not None else None


changed_for_async = in_thread(changed_for)
close_due_async = in_thread(close_due)
close_due_and_next_async = in_thread(close_due_and_next)
# Rung when a poll with a close date is created here: the closing job wakes for it
# (messages_app.poll_push.run_close_job).
close_alarm = Alarm()
