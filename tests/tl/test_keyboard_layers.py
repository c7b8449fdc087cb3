"""Keyboards for layers before 229, which had one constructor per button kind
(translate.FOLDED, RENAMED_TYPES), against the reference encoder of the old schema."""

import pytest

from tl import layers, types

from .schema_values import ref_encode


def _inline_markup():
    return types.ReplyInlineMarkup(
        rows=[
            types.KeyboardInlineButtonRow(
                buttons=[
                    types.KeyboardInlineButton(
                        text="Yes", type=types.InlineButtonTypeCallback(data=b"yes", requires_password=True)
                    ),
                    types.KeyboardInlineButton(
                        text="Site", type=types.InlineButtonTypeUrl(url="https://a.example")
                    ),
                ]
            ),
            types.KeyboardInlineButtonRow(
                buttons=[
                    types.KeyboardInlineButton(
                        text="Share", type=types.InlineButtonTypeSwitchInline(query="q", same_peer=True)
                    ),
                    types.KeyboardInlineButton(text="Copy", type=types.InlineButtonTypeCopy(copy_text="c")),
                ]
            ),
        ]
    )


def _old_inline_tree():
    return {
        "_": "replyInlineMarkup",
        "rows": [
            {
                "_": "keyboardButtonRow",
                "buttons": [
                    {"_": "keyboardButtonCallback", "requires_password": True, "text": "Yes", "data": b"yes"},
                    {"_": "keyboardButtonUrl", "text": "Site", "url": "https://a.example"},
                ],
            },
            {
                "_": "keyboardButtonRow",
                "buttons": [
                    {"_": "keyboardButtonSwitchInline", "same_peer": True, "text": "Share", "query": "q"},
                    {"_": "keyboardButtonCopy", "text": "Copy", "copy_text": "c"},
                ],
            },
        ],
    }


@pytest.mark.parametrize("layer", [224, 228])
def test_inline_keyboard_is_the_per_kind_buttons_of_older_layers(layer):
    ref = ref_encode(_old_inline_tree(), layer)
    assert layers.encode(_inline_markup(), layer) == ref
    # What an old bot sends is read as the layer-229 keyboard handlers expect.
    assert layers.decode(ref, layer) == _inline_markup()


def test_reply_keyboard_plain_and_request_buttons_before_229():
    markup = types.ReplyKeyboardMarkup(
        resize=True,
        rows=[
            types.KeyboardButtonRow(
                buttons=[
                    types.KeyboardButton(text="Plain", type=types.ButtonTypeDefault()),
                    types.KeyboardButton(text="Phone", type=types.ButtonTypeRequestPhone()),
                    types.KeyboardButton(text="Poll", type=types.ButtonTypeRequestPoll(quiz=True)),
                ]
            )
        ],
        placeholder="say",
    )
    tree = {
        "_": "replyKeyboardMarkup",
        "resize": True,
        "rows": [
            {
                "_": "keyboardButtonRow",
                "buttons": [
                    {"_": "keyboardButton", "text": "Plain"},
                    {"_": "keyboardButtonRequestPhone", "text": "Phone"},
                    {"_": "keyboardButtonRequestPoll", "quiz": True, "text": "Poll"},
                ],
            }
        ],
        "placeholder": "say",
    }
    ref = ref_encode(tree, 224)
    assert layers.encode(markup, 224) == ref
    assert layers.decode(ref, 224) == markup


def test_input_kinds_fold_to_their_input_kind_objects():
    tree = {
        "_": "replyInlineMarkup",
        "rows": [
            {
                "_": "keyboardButtonRow",
                "buttons": [
                    {"_": "inputKeyboardButtonUserProfile", "text": "Who", "user_id": {"_": "inputUserSelf"}},
                ],
            }
        ],
    }
    got = layers.decode(ref_encode(tree, 224), 224)
    (button,) = got.rows[0].buttons
    assert isinstance(got.rows[0], types.KeyboardInlineButtonRow)
    assert button == types.KeyboardInlineButton(
        text="Who", type=types.InputInlineButtonTypeUserProfile(user_id=types.InputUserSelf())
    )


def test_a_kind_an_older_layer_lacks_is_a_plain_button_with_its_text():
    markup = types.ReplyInlineMarkup(
        rows=[
            types.KeyboardInlineButtonRow(
                buttons=[types.KeyboardInlineButton(text="Gone", type=types.InlineButtonTypeDisabled())]
            )
        ]
    )
    tree = {
        "_": "replyInlineMarkup",
        "rows": [{"_": "keyboardButtonRow", "buttons": [{"_": "keyboardButton", "text": "Gone"}]}],
    }
    assert layers.encode(markup, 224) == ref_encode(tree, 224)


def test_a_message_with_an_inline_keyboard_for_layer_224_keeps_its_buttons():
    msg = types.Message(
        id=7,
        peer_id=types.PeerUser(user_id=5),
        from_id=types.PeerUser(user_id=9),
        date=1,
        message="Pick",
        reply_markup=_inline_markup(),
    )
    back = layers.decode(layers.encode(msg, 224), 224)
    assert back.reply_markup == _inline_markup()


@pytest.mark.parametrize("layer", [224, 228])
def test_web_app_buttons_are_the_web_view_buttons_of_older_layers(layer):
    """keyboardButtonWebView (inline) and keyboardButtonSimpleWebView (reply keyboard)
    both ways, so an old client opens a bot's Mini App and an old bot sends one."""
    inline = types.ReplyInlineMarkup(
        rows=[
            types.KeyboardInlineButtonRow(
                buttons=[
                    types.KeyboardInlineButton(
                        text="Shop", type=types.InlineButtonTypeWebView(url="https://shop.example/")
                    )
                ]
            )
        ]
    )
    inline_tree = {
        "_": "replyInlineMarkup",
        "rows": [
            {
                "_": "keyboardButtonRow",
                "buttons": [{"_": "keyboardButtonWebView", "text": "Shop", "url": "https://shop.example/"}],
            }
        ],
    }
    keyboard = types.ReplyKeyboardMarkup(
        rows=[
            types.KeyboardButtonRow(
                buttons=[
                    types.KeyboardButton(
                        text="Form", type=types.ButtonTypeSimpleWebView(url="https://form.example/")
                    )
                ]
            )
        ]
    )
    keyboard_tree = {
        "_": "replyKeyboardMarkup",
        "rows": [
            {
                "_": "keyboardButtonRow",
                "buttons": [
                    {"_": "keyboardButtonSimpleWebView", "text": "Form", "url": "https://form.example/"}
                ],
            }
        ],
    }
    for markup, tree in ((inline, inline_tree), (keyboard, keyboard_tree)):
        ref = ref_encode(tree, layer)
        assert layers.encode(markup, layer) == ref
        assert layers.decode(ref, layer) == markup
