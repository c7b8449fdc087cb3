"""Login code backends: the SMS webhook posts to a real local HTTP server; the log
backend is the fallback when the webhook fails or the account has no login e-mail."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from accounts_app import code_delivery, login

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def gateway():
    posted: list = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            posted.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield posted, f"http://127.0.0.1:{server.server_port}/sms"
    server.shutdown()


async def test_webhook_backend_posts_the_code(settings, gateway):
    from asgiref.sync import sync_to_async

    posted, url = gateway
    settings.LOGIN_CODE_DELIVERY = "webhook"
    settings.LOGIN_CODE_WEBHOOK_URL = url
    code = await sync_to_async(login.do_send_code)("15557770123")
    assert await code_delivery.deliver(code, "sent") == (code_delivery.SMS, "")
    assert posted == [
        {"phone": "+15557770123", "code": code.code, "text": code_delivery.code_text(code.code)}
    ]


async def test_failing_webhook_and_missing_email_fall_back_to_the_log(settings, caplog):
    from asgiref.sync import sync_to_async

    settings.LOGIN_CODE_DELIVERY = "webhook"
    settings.LOGIN_CODE_WEBHOOK_URL = "http://127.0.0.1:9/nothing-listens"
    settings.LOG_LOGIN_CODES = True
    code = await sync_to_async(login.do_send_code)("15557770124")
    assert await code_delivery.deliver(code, "sent") == (code_delivery.LOG, "")
    assert f"login code for +15557770124: {code.code}" in caplog.text
    settings.LOGIN_CODE_DELIVERY = "email"
    code = await sync_to_async(login.do_send_code)("15557770125")
    assert await code_delivery.deliver(code, "sent") == (code_delivery.LOG, "")


async def test_a_production_log_keeps_no_login_code(settings, caplog):
    from asgiref.sync import sync_to_async

    settings.LOGIN_CODE_DELIVERY = "log"
    settings.LOG_LOGIN_CODES = False
    code = await sync_to_async(login.do_send_code)("15557770126")
    assert await code_delivery.deliver(code, "sent") == (code_delivery.LOG, "")
    assert "login code for +15557770126 sent: on the console's login codes page" in caplog.text
    assert code.code not in caplog.text and code.phone_code_hash not in caplog.text
