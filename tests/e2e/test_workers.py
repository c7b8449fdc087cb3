"""Several listener processes on one port (``runmtproto --workers``): clients on different
workers talk to each other live, and a worker that dies is replaced."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
import urllib.request

import pytest

from tests.e2e import harness
from tests.e2e.test_channels import input_user, logged_in, wait_for
from tests.e2e.test_operations import sample

pytestmark = pytest.mark.django_db(transaction=True)

HEALTH_LINE = re.compile(r"health and metrics on http://127\.0\.0\.1:(\d+)/")


def metrics_of(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
        return response.read().decode()


def sessions_on(port: int) -> float:
    return sample(metrics_of(port), "telesrv_sessions") or 0


def health_ports(server: harness.EdgeServer, count: int, timeout: float = 30.0) -> list[int]:
    """The health ports the workers printed (one per worker, the newest last)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ports = [int(p) for p in HEALTH_LINE.findall(server.log())]
        if len(ports) >= count:
            return ports
        time.sleep(0.2)
    raise AssertionError(f"{count} workers did not start:\n{server.log()}")


@pytest.fixture
def two_workers(edge_env, edge_rsa_key, tmp_path):
    env = {**edge_env, "TELESRV_MTPROTO_WORKERS": "2", "TELESRV_MTPROTO_HEALTH_PORT": "0"}
    server = harness.start_edge(env, edge_rsa_key, tmp_path / "workers.log")
    yield server
    server.stop()


@pytest.fixture
async def clients():
    made: list = []
    yield made
    for c in made:
        await c.disconnect()


async def test_members_on_different_workers_see_each_other_live(two_workers, edge_db, clients):
    from telethon import events, functions

    ports = await asyncio.to_thread(health_ports, two_workers, 2)
    alice, a, _, _ = await logged_in(two_workers, "Alice", clients)
    bob, b, _, _ = await logged_in(two_workers, "Bob", clients)

    async def worker_of_each() -> list[float]:
        return [await asyncio.to_thread(sessions_on, p) for p in ports]

    # The kernel picks the worker by the connection's addresses: reconnect Bob until
    # the two are served by different processes.
    for _ in range(30):
        counts = await worker_of_each()
        if counts.count(0) == 0:
            break
        await b.disconnect()
        await b.connect()
        await b.get_me()
    assert (await worker_of_each()).count(0) == 0, "every connection landed on one worker"

    created = await a(functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title="Workers"))
    channel = created.updates.chats[1]
    got: list = []

    async def on_message(event):
        got.append(event.message.message)

    b.add_event_handler(on_message, events.NewMessage(chats=[channel.id]))
    await b.get_dialogs()
    group = await a.get_input_entity(channel)
    for i in range(3):
        await a.send_message(group, f"across {i}")
    await wait_for(lambda: len(got) == 3)
    assert got == ["across 0", "across 1", "across 2"]


def children_of(pid: int) -> set[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return {int(p) for p in f.read().split()}


async def test_a_dead_worker_is_replaced_and_clients_get_through(two_workers, edge_db, clients):
    await asyncio.to_thread(health_ports, two_workers, 2)
    alice, a, _, _ = await logged_in(two_workers, "Alice", clients)
    supervisor = two_workers.proc.pid
    before = children_of(supervisor)
    assert len(before) == 2
    victim = min(before)
    os.kill(victim, signal.SIGKILL)
    # The supervisor starts a new worker, which prints a health port of its own.
    await asyncio.to_thread(health_ports, two_workers, 3)
    after = children_of(supervisor)
    assert len(after) == 2 and victim not in after
    # Whichever worker served Alice (its connection may have died with it), her client
    # connects again, to either worker, with the same key and login. The harness's
    # clients do not reconnect by themselves: reconnect as an app does, several times.
    for _ in range(4):
        await a.disconnect()
        await a.connect()
        me = await asyncio.wait_for(a.get_me(), 60)
        assert me.id == alice.id
