"""The reaction rules both chat kinds apply (no database)."""

import pytest

from message_core import reactions as rx
from tl.errors import PremiumAccountRequiredError, ReactionInvalidError, ReactionsTooManyError


def test_the_catalog_is_the_standard_list_in_canonical_form():
    assert len(rx.STANDARD) == 72 and rx.STANDARD[:2] == ["👍", "❤"]
    assert rx.canonical("❤️") == "❤" and "\ufe0f" not in "".join(rx.STANDARD)


def test_choice_follows_the_chat_policy_and_the_per_user_cap():
    assert rx.check_choice(["❤️"], None) == ["❤"]  # "all" by default
    assert rx.check_choice([], {"kind": "none", "reactions": []}) == []  # clearing is always fine
    with pytest.raises(ReactionInvalidError):
        rx.check_choice(["👍"], {"kind": "none", "reactions": []})
    with pytest.raises(ReactionInvalidError):
        rx.check_choice(["🔥"], {"kind": "some", "reactions": ["👍"]})
    with pytest.raises(ReactionInvalidError):
        rx.check_choice([""], None)  # a custom emoji or paid reaction
    with pytest.raises(PremiumAccountRequiredError):
        rx.check_choice(["👍", "❤"], None)
    with pytest.raises(ReactionsTooManyError):
        rx.check_choice(["👍", "❤", "🔥", "🥰"], None)


def test_distinct_reactions_per_message_are_capped():
    rx.check_uniq({"👍": 3}, ["👍"], 1)  # joining a shown reaction
    with pytest.raises(ReactionsTooManyError):
        rx.check_uniq({"👍": 3}, ["❤"], 1)
    rx.check_uniq({f"r{i}": 1 for i in range(10)}, ["❤"], 0)  # 0: the server's cap (11)
    with pytest.raises(ReactionsTooManyError):
        rx.check_uniq({f"r{i}": 1 for i in range(11)}, ["❤"], 0)


def test_counts_and_policies():
    assert rx.apply_counts({"👍": 1}, ["👍"], []) is None
    assert rx.apply_counts(None, [], ["❤", "❤"]) == {"❤": 2}
    assert rx.normalize_policy("all") is None
    assert rx.normalize_policy("some", ["❤️", "❤", "👍"]) == {"kind": "some", "reactions": ["❤", "👍"]}
    with pytest.raises(ReactionInvalidError):
        rx.normalize_policy("some", ["not an emoji"])
