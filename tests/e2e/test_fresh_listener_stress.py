"""Fresh listeners against the JavaScript clients, again and again.

mtcute 0.30 (TCP intermediate) sometimes got no answer at all to its first encrypted
request on a listener that had just started: its key exchanges completed, then
``help.getNearestDc`` inside ``initConnection`` waited 60 s and every later step failed.
Each round here starts a new listener process and signs in with mtcute and with GramJS
right away, the moment the port accepts; a request the server accepted and never
answered fails the round within seconds instead of a minute. The whole test is bounded
(ROUNDS x a few seconds).
"""

from __future__ import annotations

import asyncio
import os

import pytest
from asgiref.sync import sync_to_async

from tests.e2e import harness
from tests.e2e.js_clients import JsClient, ensure_node_modules

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = int(os.environ.get("TELESRV_STRESS_ROUNDS", "4"))
# A sign-in is a few round trips: well under this even on a loaded 2-core box; the hang
# this guards against lasted 60 s.
LOGIN_TIMEOUT = 20.0


@pytest.fixture(scope="module")
def node_modules():
    ensure_node_modules()


async def sign_in(script: str, server, log_path, **env) -> None:
    from accounts_app.actions import do_create_user

    phone, code = harness.fresh_phone()
    await sync_to_async(do_create_user)(phone, "Fresh")
    js = await JsClient.start(script, server, log_path, **env)
    try:
        me = await js.call("login", timeout=LOGIN_TIMEOUT, phone=phone, code=code)
        assert int(me["id"]) > 0
    finally:
        await js.close()


async def test_fresh_listeners_answer_mtcute_and_gramjs(node_modules, start_edge_server, edge_db, tmp_path):
    for i in range(ROUNDS):
        server = start_edge_server()
        try:
            # Both at once, right after the port opens: the listener is still finishing
            # its start-up (push subscriber, heap freeze) while the keys are made.
            await asyncio.gather(
                sign_in("mtcute_client.mjs", server, tmp_path / f"mtcute-{i}.log"),
                sign_in("gramjs_client.mjs", server, tmp_path / f"gramjs-{i}.log", GRAMJS_TRANSPORT="tcp"),
            )
            log = server.log()
            assert "Traceback" not in log, log[-3000:]
        finally:
            server.stop()
