"""The INFO lines an operator traces abuse with name the client's real address and its
app: sign-in, sign-up, a new authorization, QR acceptance, a terminated session, and
each refused step."""

import logging
from types import SimpleNamespace

import pytest
from asgiref.sync import sync_to_async

from accounts_app.models import LoginCode
from tests.accounts_app.test_rpc import call
from tl import functions, types
from tl.errors import AuthTokenInvalidError, PhoneCodeInvalidError

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = "+15557770101"


def _device(make_ctx, ip: str, version: str):
    ctx = make_ctx()
    ctx.ip = ip
    ctx.client = SimpleNamespace(
        api_id=2040, device_model="PC", system_version="Linux", app_version=version,
        lang_pack="tdesktop", lang_code="en", system_lang_code="en",
    )  # fmt: skip
    return ctx


async def _code(ctx):
    sent = await call(
        ctx,
        functions.auth.SendCode(phone_number=PHONE, api_id=1, api_hash="x", settings=types.CodeSettings()),
    )
    code = await sync_to_async(lambda: LoginCode.objects.get(phone_code_hash=sent.phone_code_hash).code)()
    return sent.phone_code_hash, code


async def test_login_lines_name_the_address_and_app(make_ctx, caplog):
    first = _device(make_ctx, "203.0.113.5", "5.1.7")
    second = _device(make_ctx, "198.51.100.7", "5.2.0")
    new = _device(make_ctx, "192.0.2.9", "6.0")
    with caplog.at_level(logging.INFO, logger="telesrv.login"):
        hash_, code = await _code(first)
        wrong = "0" * len(code) if code != "0" * len(code) else "1" * len(code)
        with pytest.raises(PhoneCodeInvalidError):
            await call(
                first, functions.auth.SignIn(phone_number=PHONE, phone_code_hash=hash_, phone_code=wrong)
            )
        await call(first, functions.auth.SignIn(phone_number=PHONE, phone_code_hash=hash_, phone_code=code))
        await call(
            first,
            functions.auth.SignUp(phone_number=PHONE, phone_code_hash=hash_, first_name="Ann", last_name=""),
        )
        hash_, code = await _code(second)
        await call(second, functions.auth.SignIn(phone_number=PHONE, phone_code_hash=hash_, phone_code=code))
        token = await call(new, functions.auth.ExportLoginToken(api_id=1, api_hash="x", except_ids=[]))
        await call(first, functions.auth.AcceptLoginToken(token=token.token))
        with pytest.raises(AuthTokenInvalidError):
            await call(first, functions.auth.AcceptLoginToken(token=b"nonsense"))
        await call(first, functions.auth.ResetAuthorizations())
    lines = [r.getMessage() for r in caplog.records if r.name == "telesrv.login"]

    def one(*parts):
        found = [line for line in lines if all(p in line for p in parts)]
        assert found, f"no line with {parts} in {lines}"

    one("sign-in refused (PHONE_CODE_INVALID) for +15557770101 from 203.0.113.5 (Telegram Desktop 5.1.7)")
    one("signed up (+15557770101) from 203.0.113.5 (Telegram Desktop 5.1.7)")
    one("new authorization: user", "from 203.0.113.5 (Telegram Desktop 5.1.7)")
    one("signed in on key", "from 198.51.100.7 (Telegram Desktop 5.2.0)")
    one("new authorization: user", "from 198.51.100.7 (Telegram Desktop 5.2.0)")
    one("accepted a login token", "the new device is 192.0.2.9 (Telegram Desktop 6.0)")
    one("login token acceptance refused (AUTH_TOKEN_INVALID) from 203.0.113.5 (Telegram Desktop 5.1.7)")
    one("terminated the session on key", "from 198.51.100.7 (Telegram Desktop 5.2.0)")
    one("terminated the session on key", "from 192.0.2.9 (Telegram Desktop 6.0)")
