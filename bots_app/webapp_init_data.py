"""Mini App launch data (``initData``) signed as Telegram documents it, so a bot checks it
with its framework's own helper (aiogram's ``safe_parse_webapp_init_data``,
``@telegram-apps/init-data-node``'s ``validate``, python-telegram-bot users' recipes):

    secret_key = HMAC_SHA256(key="WebAppData", msg=bot_token)
    hash = hex(HMAC_SHA256(key=secret_key, msg=data_check_string))

where the data-check-string is every other field as ``key=value``, sorted by key,
joined by newlines. The server never keeps a bot's token, only ``secret_key`` (one-way,
``Bot.webapp_secret``).

Like Telegram's, the data also carries ``signature``: Ed25519 over
``"<bot id>:WebAppData\n" + data_check_string`` (without hash and signature), base64url,
so a third party that knows the deployment's public key (not Telegram's) can check it
without the token; parsers such as init-data-node's ``parse`` expect the field.

And the fragment Telegram's clients hand the page: ``#tgWebAppData=...&tgWebAppVersion=
...&tgWebAppPlatform=...&tgWebAppThemeParams=...``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

# The Bot API version the Mini App may rely on (window.Telegram.WebApp.version).
WEB_APP_VERSION = "8.0"
PLATFORMS = {"android", "android_x", "ios", "macos", "tdesktop", "weba", "webk", "web", "unigram", "unknown"}


def secret_key(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "hash")


def signing_key(seed: bytes) -> Ed25519PrivateKey:
    """The deployment's Ed25519 key, derived from ``seed`` (its secret key)."""
    return Ed25519PrivateKey.from_private_bytes(
        hmac.new(seed, b"WebAppData signature", hashlib.sha256).digest()
    )


def public_key_hex(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes_raw().hex()


def sign(
    secret: bytes, fields: dict[str, str], *, bot_id: int = 0, key: Ed25519PrivateKey | None = None
) -> str:
    """``fields`` with their ``signature`` (with ``key``) and ``hash`` as the URL-encoded
    initData string."""
    fields = {k: v for k, v in fields.items() if k not in ("hash", "signature")}
    if key is not None:
        message = f"{bot_id}:WebAppData\n" + data_check_string(fields)
        fields["signature"] = base64.urlsafe_b64encode(key.sign(message.encode())).rstrip(b"=").decode()
    digest = hmac.new(secret, data_check_string(fields).encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest}, quote_via=quote)


def user_json(user: dict) -> str:
    """The ``user`` field: WebAppUser as Telegram's clients get it (compact JSON)."""
    return json.dumps(user, ensure_ascii=False, separators=(",", ":"))


def launch_url(
    url: str, init_data: str, platform: str, theme_params: str | None, start_param: str = ""
) -> str:
    """The page's URL with Telegram's launch parameters in the fragment (and the start
    parameter in the query, as for direct links)."""
    parts = urlsplit(url)
    query = parts.query
    if start_param:
        query = (query + "&" if query else "") + urlencode({"tgWebAppStartParam": start_param})
    fragment = {
        "tgWebAppData": init_data,
        "tgWebAppVersion": WEB_APP_VERSION,
        "tgWebAppPlatform": platform if platform in PLATFORMS else "unknown",
    }
    if theme_params:
        fragment["tgWebAppThemeParams"] = theme_params
    return urlunsplit(parts._replace(query=query, fragment=urlencode(fragment, quote_via=quote)))
