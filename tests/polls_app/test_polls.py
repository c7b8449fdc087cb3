"""Poll rules, votes and closing against the real database: Telegram's errors for bad
polls, exact totals under concurrent voting, per-viewer results (a quiz's answer only
for voters), and close_date closing each poll exactly once with several workers."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from polls_app import actions as polls
from polls_app.models import Poll, PollVote
from tl import errors

pytestmark = pytest.mark.django_db(transaction=True)


def spec(n=3, **kw):
    return {
        "question": "Q?",
        "answers": [{"text": f"a{i}", "option": str(i).encode()} for i in range(n)],
        **kw,
    }


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (spec(13), errors.PollAnswersInvalidError),
        (spec(1), errors.PollAnswersInvalidError),
        (spec(question=""), errors.PollQuestionInvalidError),
        (spec(question="x" * 256), errors.PollQuestionInvalidError),
        (spec(quiz=True), errors.QuizCorrectAnswersEmptyError),
        (spec(quiz=True, correct=[0, 1]), errors.QuizCorrectAnswersTooMuchError),
        (spec(quiz=True, correct=[7]), errors.QuizCorrectAnswerInvalidError),
        (spec(quiz=True, correct=[0], multiple_choice=True), errors.QuizMultipleInvalidError),
        (
            {**spec(), "answers": [{"text": "a", "option": b"x"}, {"text": "b", "option": b"x"}]},
            errors.PollOptionDuplicateError,
        ),
        (
            {**spec(), "answers": [{"text": "", "option": b"x"}, {"text": "b", "option": b"y"}]},
            errors.PollAnswerInvalidError,
        ),
        (spec(close_period=3), errors.MediaInvalidError),
    ],
)
def test_bad_polls_get_telegrams_errors_and_store_nothing(bad, error):
    with pytest.raises(error):
        polls.check_poll(bad)
    assert Poll.objects.count() == 0


def test_public_voters_refused_in_broadcasts():
    with pytest.raises(errors.PollPublicVotersForbiddenError):
        polls.check_poll(spec(public_voters=True), broadcast=True)


def _create(**kw) -> int:
    clean = polls.check_poll(spec(**kw))
    from datetime import UTC, datetime

    return Poll.objects.create(
        id=Poll.objects.count() + 1000, creator_id=1, date=0, updated_at=datetime.now(tz=UTC), **clean
    ).id


def _vote(poll_id, user_id, options):
    try:
        polls.do_send_vote.__wrapped__(poll_id, user_id, options)
    finally:
        connection.close()


def test_concurrent_votes_are_counted_exactly():
    poll_id = _create(multiple_choice=True)
    voters = range(1, 41)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda u: _vote(poll_id, u, [b"0", b"1"] if u % 2 else [b"2"]), voters))
        # and everyone changes their mind at once
        list(pool.map(lambda u: _vote(poll_id, u, [b"1"]), voters))
    r = polls.results_of([poll_id], 3)[poll_id]
    assert r["total"] == 40 and r["counts"] == {"31": 40} and r["chosen"] == ["31"]
    assert PollVote.objects.filter(poll_id=poll_id).count() == 40


def test_votes_rules_retraction_and_quiz_finality():
    poll_id = _create()
    with pytest.raises(errors.OptionsTooMuchError):
        _vote(poll_id, 5, [b"0", b"1"])
    with pytest.raises(errors.OptionInvalidError):
        _vote(poll_id, 5, [b"9"])
    _vote(poll_id, 5, [b"0"])
    _vote(poll_id, 5, [])
    assert polls.results_of([poll_id], 5)[poll_id]["total"] == 0

    quiz = _create(quiz=True, correct=[2], solution="because")
    before = polls.results_of([quiz], 6)[quiz]
    assert before["correct"] == [] and before["solution"] == ""
    _vote(quiz, 6, [b"0"])
    after = polls.results_of([quiz], 6)[quiz]
    assert after["correct"] == [b"2".hex()] and after["solution"] == "because"
    assert polls.results_of([quiz], 7)[quiz]["correct"] == []  # not voted: not shown
    with pytest.raises(errors.RevoteNotAllowedError):
        _vote(quiz, 6, [])


def test_close_due_closes_each_poll_once_across_workers():
    from message_core.clock import now

    ids = [_create() for _ in range(30)]
    Poll.objects.filter(id__in=ids).update(close_date=now() - 1)
    barrier = threading.Barrier(4)
    closed: list[list[int]] = []

    def worker():
        barrier.wait()
        try:
            got = []
            while batch := polls.close_due(limit=3):
                got += batch
            closed.append(got)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [i for got in closed for i in got]
    assert sorted(every) == sorted(ids)  # each closed, none twice
    with pytest.raises(errors.MessagePollClosedError):
        _vote(ids[0], 1, [b"0"])
