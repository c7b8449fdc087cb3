"""parse_mode to entities (UTF-16 offsets) and the Bot API's error texts."""

from __future__ import annotations

import pytest

from botapi_app import errors, parse_mode
from tl.errors import RpcError


def test_html_nested_links_mentions_and_pre_with_language():
    text, entities = parse_mode.parse(
        '<b>bold <i>both</i></b> 😀<a href="https://x.org">link</a> <a href="tg://user?id=42">you</a>'
        '\n<pre><code class="language-python">x = 1</code></pre> &lt;kept&gt;',
        "HTML",
    )
    assert text == "bold both 😀link you\nx = 1 <kept>"
    assert entities == [
        {"type": "bold", "offset": 0, "length": 9},
        {"type": "italic", "offset": 5, "length": 4},
        {"type": "textUrl", "offset": 12, "length": 4, "url": "https://x.org"},  # the emoji is 2 UTF-16 units
        {"type": "mentionName", "offset": 17, "length": 3, "user_id": 42},
        {"type": "pre", "offset": 21, "length": 5, "language": "python"},
    ]


@pytest.mark.parametrize(
    ("source", "mode", "error"),
    [
        ("<b>open", "HTML", "can't parse entities: can't find end tag corresponding to start tag \"bold\""),
        ("<blink>x</blink>", "HTML", 'can\'t parse entities: unsupported start tag "blink" at byte offset 0'),
        (
            "1.5",
            "MarkdownV2",
            "can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
        ),
        ("*open", "MarkdownV2", "can't parse entities: can't find end of bold entity at byte offset 5"),
        ("*open", "Markdown", "can't parse entities: can't find end of the entity starting at byte offset 0"),
        ("x", "Klingon", "unsupported parse_mode"),
    ],
)
def test_parse_errors_are_bad_requests_in_telegrams_words(source, mode, error):
    with pytest.raises(errors.BadRequest) as exc:
        parse_mode.parse(source, mode)
    assert exc.value.body() == {"ok": False, "error_code": 400, "description": f"Bad Request: {error}"}


def test_markdown_v2_marks_escapes_and_links():
    text, entities = parse_mode.parse(r"*b* _i_ __u__ ~s~ ||sp|| `c` [l](https://a.b/\)) 1\.5", "MarkdownV2")
    assert text == "b i u s sp c l 1.5"
    kinds = [(e["type"], e["offset"], e["length"]) for e in entities]
    assert kinds == [
        ("bold", 0, 1),
        ("italic", 2, 1),
        ("underline", 4, 1),
        ("strike", 6, 1),
        ("spoiler", 8, 2),
        ("code", 11, 1),
        ("textUrl", 13, 1),
    ]
    assert entities[-1]["url"] == "https://a.b/)"


def test_legacy_markdown():
    assert parse_mode.parse("*b* _i_ `c` [l](https://x.org)", "Markdown") == (
        "b i c l",
        [
            {"type": "bold", "offset": 0, "length": 1},
            {"type": "italic", "offset": 2, "length": 1},
            {"type": "code", "offset": 4, "length": 1},
            {"type": "textUrl", "offset": 6, "length": 1, "url": "https://x.org"},
        ],
    )
    assert parse_mode.parse("plain", None) is None


def test_rpc_errors_become_bot_api_errors():
    flood = errors.from_rpc(RpcError(420, "FLOOD_WAIT_7"))
    assert flood.body() == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 7",
        "parameters": {"retry_after": 7},
    }
    assert errors.from_rpc(RpcError(400, "PEER_ID_INVALID")).description == "Bad Request: chat not found"
    assert errors.from_rpc(RpcError(400, "USER_IS_BOT")).body()["error_code"] == 403
    assert errors.from_rpc(RpcError(400, "SOMETHING_ELSE")).description == "Bad Request: SOMETHING_ELSE"


def test_markdown_v2_pre_block_with_language():
    text, entities = parse_mode.parse("see:\n```python\nx = *1*\n```", "MarkdownV2")
    assert text == "see:\nx = *1*\n"
    assert entities == [{"type": "pre", "offset": 5, "length": 8, "language": "python"}]
