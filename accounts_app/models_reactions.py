"""Account-level reaction lists: recently used, most used, saved-tag titles."""

from django.db import models


class RecentReaction(models.Model):
    """messages.sendReaction(add_to_recent): the account's recent reactions, newest first."""

    user_id = models.BigIntegerField()
    reaction = models.CharField(max_length=32)
    date = models.IntegerField()

    class Meta:
        db_table = "user_recent_reactions"
        constraints = [
            models.UniqueConstraint(fields=["user_id", "reaction"], name="user_recent_reactions_uniq")
        ]
        indexes = [models.Index(fields=["user_id", "-date"], name="user_recent_reactions_order")]


class TopReaction(models.Model):
    """How often the account reacted with each reaction (messages.getTopReactions)."""

    user_id = models.BigIntegerField()
    reaction = models.CharField(max_length=32)
    count = models.IntegerField(default=0)
    date = models.IntegerField()

    class Meta:
        db_table = "user_top_reactions"
        constraints = [
            models.UniqueConstraint(fields=["user_id", "reaction"], name="user_top_reactions_uniq")
        ]
        indexes = [models.Index(fields=["user_id", "-count", "-date"], name="user_top_reactions_order")]


class SavedReactionTag(models.Model):
    """The title the account gave a saved-messages reaction tag (titles only)."""

    user_id = models.BigIntegerField()
    reaction = models.CharField(max_length=32)
    title = models.CharField(max_length=12)

    class Meta:
        db_table = "user_saved_reaction_tags"
        constraints = [
            models.UniqueConstraint(fields=["user_id", "reaction"], name="user_saved_reaction_tags_uniq")
        ]
