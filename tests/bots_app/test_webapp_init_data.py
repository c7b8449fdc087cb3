"""Mini App launch data: signed as Telegram documents it (checked against aiogram's
own check), with the Ed25519 signature, and carried in the URL fragment."""

from __future__ import annotations

import base64
import json
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

import pytest
from aiogram.utils.web_app import check_webapp_signature, safe_parse_webapp_init_data

from bots_app import webapp_init_data as w
from bots_app.webapps import query_id_of, query_string
from tl.errors import QueryIdInvalidError

TOKEN = "123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"


def _fields() -> dict:
    user = {"id": 42, "first_name": "Zoë", "username": "zoe", "allows_write_to_pm": True}
    return {
        "auth_date": "1733580000", "query_id": "AAq", "user": w.user_json(user),
        "chat_type": "sender", "chat_instance": "-123", "start_param": "ref",
    }  # fmt: skip


def test_the_hash_is_telegrams_and_covers_every_field():
    key = w.signing_key(b"deployment secret")
    init_data = w.sign(w.secret_key(TOKEN), _fields(), bot_id=123456, key=key)
    assert check_webapp_signature(TOKEN, init_data)
    assert not check_webapp_signature("123456:AAother", init_data)
    for name in ("user", "auth_date", "query_id", "chat_instance", "chat_type", "start_param", "signature"):
        fields = dict(parse_qsl(init_data))
        fields[name] += "x"
        assert not check_webapp_signature(TOKEN, urlencode(fields)), name
    parsed = safe_parse_webapp_init_data(TOKEN, init_data)
    assert parsed.user.first_name == "Zoë" and parsed.start_param == "ref"


def test_the_signature_is_ed25519_over_the_bot_id_and_the_data_check_string():
    key = w.signing_key(b"deployment secret")
    fields = dict(parse_qsl(w.sign(w.secret_key(TOKEN), _fields(), bot_id=123456, key=key)))
    signature = base64.urlsafe_b64decode(fields.pop("signature") + "==")
    fields.pop("hash")
    message = "123456:WebAppData\n" + w.data_check_string(fields)
    key.public_key().verify(signature, message.encode())  # raises when wrong
    assert w.public_key_hex(key) == w.public_key_hex(w.signing_key(b"deployment secret"))
    assert w.public_key_hex(key) != w.public_key_hex(w.signing_key(b"another"))


def test_the_launch_url_carries_the_data_in_the_fragment():
    url = w.launch_url(
        "https://a.example/app?x=1", "auth_date=1&hash=ab", "tdesktop", '{"bg_color":"#fff"}', "go"
    )
    parts = urlsplit(url)
    assert parts.path == "/app" and parse_qs(parts.query) == {"x": ["1"], "tgWebAppStartParam": ["go"]}
    fragment = dict(parse_qsl(parts.fragment))
    assert fragment == {
        "tgWebAppData": "auth_date=1&hash=ab",
        "tgWebAppVersion": w.WEB_APP_VERSION,
        "tgWebAppPlatform": "tdesktop",
        "tgWebAppThemeParams": '{"bg_color":"#fff"}',
    }
    unknown = dict(parse_qsl(urlsplit(w.launch_url("https://a.example/", "h=1", "evil&x", None)).fragment))
    assert unknown["tgWebAppPlatform"] == "unknown" and "tgWebAppThemeParams" not in unknown
    assert json.loads(w.user_json({"id": 1, "first_name": "Ü"})) == {"id": 1, "first_name": "Ü"}


def test_query_ids_round_trip_and_garbage_is_refused():
    text = query_string(42, 2**61 + 5)
    assert query_id_of(text) == 2**61 + 5
    with pytest.raises(QueryIdInvalidError):
        query_id_of("not a query")
