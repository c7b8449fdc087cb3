"""Webhook delivery beyond the happy path: a receiver that is down (pending count, last
error and its date in getWebhookInfo, nothing lost), drop_pending_updates on setWebhook
and deleteWebhook, max_connections kept and never exceeded, order kept, and a dead
receiver of one bot not holding another bot's deliveries."""

from __future__ import annotations

import asyncio
import time

import pytest
from aiohttp import web

from tests.e2e import harness
from tests.e2e.test_botapi import call, updates_until
from tests.e2e.test_bots import _new_bot
from tests.e2e.test_channels import logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


class Receiver:
    """A local HTTP receiver counting requests in flight (slow: ``delay`` each)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.got: list[dict] = []
        self.in_flight = self.most_in_flight = 0
        self.delay = delay
        self.port = harness.free_port()
        self.runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    async def _receive(self, request: web.Request) -> web.Response:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            self.got.append(await request.json())
            return web.Response(text="ok")
        finally:
            self.in_flight -= 1

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/hook", self._receive)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


async def _info(base: str, token: str) -> dict:
    status, body = await call(base, token, "getWebhookInfo")
    assert status == 200, body
    return body["result"]


async def test_webhook_down_drop_pending_and_max_connections(edge_server, botapi_server, edge_db, clients):
    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    _, username, token = await _new_bot(alice.id, "Hook")
    _, other_name, other_token = await _new_bot(alice.id, "Other")
    base = botapi_server.base
    receiver, other = Receiver(delay=0.2), Receiver()
    try:
        # Nobody listens at the URL yet: the updates wait, the error is shown with its date.
        before = int(time.time())
        assert (await call(base, token, "setWebhook", url=receiver.url, max_connections=2))[1][
            "result"
        ] is True
        await a.send_message(username, "one")
        await a.send_message(username, "two")
        for _ in range(60):
            info = await _info(base, token)
            if info.get("last_error_date") and info["pending_update_count"] == 2:
                break
            await asyncio.sleep(0.2)
        assert info["url"] == receiver.url and info["max_connections"] == 2
        assert info["pending_update_count"] == 2
        assert info["last_error_message"] == "Connection refused"
        assert before <= info["last_error_date"] <= int(time.time()) + 1

        # Another bot's receiver works meanwhile: the dead one holds only its own bot.
        await other.start()
        await call(base, other_token, "setWebhook", url=other.url)
        await a.send_message(other_name, "elsewhere")
        await wait_for(lambda: other.got, 15)
        assert other.got[0]["message"]["text"] == "elsewhere"

        # Set again with drop_pending_updates: the two are gone, never delivered.
        await receiver.start()
        _, body = await call(
            base, token, "setWebhook", url=receiver.url, max_connections=2, drop_pending_updates=True
        )
        assert body == {"ok": True, "result": True}
        info = await _info(base, token)
        assert info["pending_update_count"] == 0 and "last_error_date" not in info

        # Five more arrive together: delivered in order, never more than max_connections at once.
        for i in range(5):
            await a.send_message(username, f"m{i}")
        await wait_for(lambda: len(receiver.got) >= 5, 30)
        await asyncio.sleep(0.5)
        assert [u["message"]["text"] for u in receiver.got] == [f"m{i}" for i in range(5)]
        ids = [u["update_id"] for u in receiver.got]
        assert ids == sorted(ids) and len(set(ids)) == 5
        assert 1 <= receiver.most_in_flight <= 2

        # deleteWebhook with drop_pending_updates: what was waiting is dropped; getUpdates
        # then gets only what comes after.
        await receiver.stop()
        receiver.runner = None
        await a.send_message(username, "lost")
        for _ in range(50):
            if (await _info(base, token))["pending_update_count"]:
                break
            await asyncio.sleep(0.1)
        assert (await call(base, token, "deleteWebhook", drop_pending_updates=True))[1]["result"] is True
        info = await _info(base, token)
        assert (info["url"], info["pending_update_count"]) == ("", 0)
        await a.send_message(username, "after")
        got = await updates_until(base, token, 1)
        assert [u["message"]["text"] for u in got] == ["after"]
    finally:
        await receiver.stop()
        await other.stop()
