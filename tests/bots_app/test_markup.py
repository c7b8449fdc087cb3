"""Reply markup: the stored form round-trips through TL, Telegram's limits, selective."""

from __future__ import annotations

import pytest

from bots_app.markup import callback_data_in, validate
from message_core.tl_convert_markup import (
    UnsupportedButton,
    reply_markup_from_tl,
    reply_markup_to_tl,
    visible_markup,
)
from tl import types
from tl.errors import (
    ButtonDataInvalidError,
    ButtonTextInvalidError,
    ButtonUrlInvalidError,
    ReplyMarkupInvalidError,
    ReplyMarkupTooLongError,
)


def inline(*buttons):
    return types.ReplyInlineMarkup(rows=[types.KeyboardInlineButtonRow(buttons=list(buttons))])


def cb(text="Go", data=b"go"):
    return types.KeyboardInlineButton(text=text, type=types.InlineButtonTypeCallback(data=data))


def test_inline_and_reply_keyboards_round_trip():
    markup = types.ReplyInlineMarkup(
        rows=[
            types.KeyboardInlineButtonRow(
                buttons=[
                    cb(),
                    types.KeyboardInlineButton(
                        text="Web", type=types.InlineButtonTypeUrl(url="https://x.org")
                    ),
                ]
            ),
            types.KeyboardInlineButtonRow(
                buttons=[
                    types.KeyboardInlineButton(
                        text="Share", type=types.InlineButtonTypeSwitchInline(query="q", same_peer=True)
                    ),
                    types.KeyboardInlineButton(text="Copy", type=types.InlineButtonTypeCopy(copy_text="abc")),
                ]
            ),
        ]
    )
    stored = validate(reply_markup_from_tl(markup))
    assert reply_markup_to_tl(stored).to_bytes() == markup.to_bytes()
    assert callback_data_in(stored, b"go") and not callback_data_in(stored, b"other")

    keyboard = types.ReplyKeyboardMarkup(
        rows=[
            types.KeyboardButtonRow(
                buttons=[
                    types.KeyboardButton(text="Yes", type=types.ButtonTypeDefault()),
                    types.KeyboardButton(text="Phone", type=types.ButtonTypeRequestPhone()),
                ]
            )
        ],
        resize=True,
        single_use=True,
        selective=True,
        placeholder="Answer",
    )
    assert reply_markup_to_tl(validate(reply_markup_from_tl(keyboard))).to_bytes() == keyboard.to_bytes()
    for simple in (types.ReplyKeyboardHide(selective=True), types.ReplyKeyboardForceReply(placeholder="?")):
        assert reply_markup_to_tl(reply_markup_from_tl(simple)).to_bytes() == simple.to_bytes()


@pytest.mark.parametrize(
    ("markup", "error"),
    [
        (inline(cb(data=b"")), ButtonDataInvalidError),
        (inline(cb(data=b"x" * 65)), ButtonDataInvalidError),
        (inline(cb(text="  ")), ButtonTextInvalidError),
        (
            inline(
                types.KeyboardInlineButton(text="Bad", type=types.InlineButtonTypeUrl(url="javascript:x"))
            ),
            ButtonUrlInvalidError,
        ),
        (inline(*[cb(data=bytes([i])) for i in range(13)]), ReplyMarkupTooLongError),
        (types.ReplyKeyboardMarkup(rows=[]), ReplyMarkupInvalidError),
    ],
)
def test_telegrams_limits(markup, error):
    with pytest.raises(error):
        validate(reply_markup_from_tl(markup))


def test_buttons_not_kept_are_refused():
    with pytest.raises(UnsupportedButton):
        reply_markup_from_tl(
            inline(types.KeyboardInlineButton(text="Play", type=types.InlineButtonTypeGame()))
        )


def test_selective_keyboards_reach_only_their_targets():
    stored = reply_markup_from_tl(
        types.ReplyKeyboardMarkup(
            rows=[
                types.KeyboardButtonRow(
                    buttons=[types.KeyboardButton(text="A", type=types.ButtonTypeDefault())]
                )
            ],
            selective=True,
        )
    )
    assert visible_markup(stored, 7, sender_id=1, targets={7}) == stored
    assert visible_markup(stored, 8, sender_id=1, targets={7}) is None
    assert visible_markup(stored, 1, sender_id=1, targets={7}) == stored
    everyone = reply_markup_from_tl(inline(cb()))
    assert visible_markup(everyone, 8, sender_id=1, targets=set()) == everyone
