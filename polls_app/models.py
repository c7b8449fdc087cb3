"""Polls and their votes. A message's media keeps the poll's fixed part (question,
answers, kind) as a snapshot; what changes (votes, closing, the quiz's correct answer
and solution, which only voters see) lives here and is attached per viewer."""

from django.db import models


class Poll(models.Model):
    id = models.BigIntegerField(primary_key=True)
    creator_id = models.BigIntegerField()
    date = models.IntegerField()
    question = models.TextField()
    question_entities = models.JSONField(default=list)
    # [{"option": hex, "text": str, "entities": [...]}] in the creator's order.
    answers = models.JSONField(default=list)
    multiple_choice = models.BooleanField(default=False)
    quiz = models.BooleanField(default=False)
    public_voters = models.BooleanField(default=False)
    correct = models.JSONField(default=list)  # quiz: [hex option]
    solution = models.TextField(default="")
    solution_entities = models.JSONField(default=list)
    close_period = models.IntegerField(default=0)
    close_date = models.IntegerField(default=0)  # 0: open until closed by an edit
    closed = models.BooleanField(default=False)
    # When the results last changed (a vote, a retraction, closing): the account
    # difference offers updateMessagePoll for polls changed since the client's state.
    updated_at = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "polls"
        indexes = [
            models.Index(
                fields=["close_date"],
                name="polls_due_close",
                condition=models.Q(closed=False, close_date__gt=0),
            )
        ]


class PollVote(models.Model):
    """One voter's choice of one option (a multiple-choice vote is several rows)."""

    id = models.BigAutoField(primary_key=True)
    poll_id = models.BigIntegerField()
    user_id = models.BigIntegerField()
    option = models.CharField(max_length=200)  # hex of the option bytes
    date = models.IntegerField()

    class Meta:
        db_table = "poll_votes"
        constraints = [
            models.UniqueConstraint(fields=["poll_id", "user_id", "option"], name="poll_votes_unique")
        ]
        indexes = [
            models.Index(fields=["poll_id", "option", "-date", "-user_id"], name="poll_votes_by_option"),
            models.Index(fields=["poll_id", "-date", "-user_id"], name="poll_votes_by_date"),
        ]
