"""Privacy mode: what a bot in a group sees."""

from __future__ import annotations

import pytest

from bots_app.privacy_mode import sees

BOT = 500
NAME = "Helper_bot"


def msg(text: str = "", **extra) -> dict:
    return {"message": text, "entities": [], "sender_user_id": 7, "reply_to_user_id": 0, **extra}


@pytest.mark.parametrize(
    ("message", "seen"),
    [
        (msg("hello everyone"), False),
        (msg("/start"), True),
        (msg("/help@helper_bot please"), True),
        (msg("/help@other_bot"), False),
        (msg("@Helper_bot what's up", entities=[{"type": "mention", "offset": 0, "length": 11}]), True),
        (msg("@other_bot hi", entities=[{"type": "mention", "offset": 0, "length": 10}]), False),
        (msg("hey you", entities=[{"type": "mentionName", "offset": 4, "length": 3, "user_id": BOT}]), True),
        (msg("hey you", entities=[{"type": "mentionName", "offset": 4, "length": 3, "user_id": 9}]), False),
        (msg("thanks!", reply_to_user_id=BOT), True),
        (msg("thanks!", reply_to_user_id=8), False),
        (msg("", action={"type": "chat_add_user", "users": [9]}), True),
        (msg("my own", sender_user_id=BOT), True),
        (msg("/"), False),
    ],
)
def test_privacy_on_shows_only_what_is_meant_for_the_bot(message, seen):
    assert sees(BOT, NAME, message, privacy=True, admin=False) is seen


def test_privacy_off_or_admin_sees_everything():
    plain = msg("hello everyone")
    assert sees(BOT, NAME, plain, privacy=False, admin=False)
    assert sees(BOT, NAME, plain, privacy=True, admin=True)
