"""Accounts benchmarks: prints figures (not a test).

1. Domain: auth.sendCode + auth.signIn pairs per second (an existing user, new key).
2. Domain: account update log appends per second, one user (the row lock serializes
   them) and spread over many users.
3. Domain: updates.getDifference over a 100-event page: p50/p99.
4. Full stack: Telethon 1.45 logging in over the real listener (new key, sendCode,
   signIn, getState, getDifference): p50/p99 per login.

    TELESRV_DB_NAME=telesrv_bench_accounts TELESRV_REDIS_PREFIX=bench_accounts \\
        .venv/bin/python bench/bench_accounts.py --logins 20

The database is created and migrated if needed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "telesrv_project.settings")
os.environ.setdefault("TELESRV_DB_NAME", "telesrv_bench_accounts")
os.environ.setdefault("TELESRV_REDIS_PREFIX", "bench_accounts")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def setup_django() -> None:
    from telesrv_project.database import ensure_database

    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def fresh_phone(i: int) -> str:
    return f"1555{os.getpid() % 1000:03d}{int(time.time()) % 100:02d}{i:04d}"


def bench_login(n: int) -> None:
    from django.conf import settings

    from accounts_app import login
    from accounts_app.actions import do_create_user

    settings.LOGIN_CODES_PER_HOUR = n + 1
    user = do_create_user(fresh_phone(0), "Bench")
    start = time.perf_counter()
    for i in range(n):
        code = login.do_send_code(user.phone)
        login.do_sign_in(
            10**12 + i + os.getpid() * 10**6, user.phone, code.phone_code_hash, code.code, login.DeviceInfo()
        )
    elapsed = time.perf_counter() - start
    print(f"sendCode+signIn (domain):        {n / elapsed:8.0f} logins/s  ({n} logins)")


def bench_appends(n: int, users: int) -> None:
    from django.db import connections

    from accounts_app.actions import do_create_user
    from accounts_app.updates import append_user_update

    one = do_create_user(fresh_phone(1), "Log")
    start = time.perf_counter()
    for _ in range(n):
        append_user_update(one.id, "bench", {})
    print(f"appends, one user, sequential:   {n / (time.perf_counter() - start):8.0f} events/s")

    many = [do_create_user(fresh_phone(100 + i), f"U{i}").id for i in range(users)]

    def work(uid: int) -> None:
        for _ in range(n // users):
            append_user_update(uid, "bench", {})
        connections.close_all()

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(work, many))
    total = (n // users) * users
    print(f"appends, {users} users, 8 threads:   {total / (time.perf_counter() - start):8.0f} events/s")

    def contended(_: int) -> None:
        for _ in range(n // 8):
            append_user_update(one.id, "bench", {})
        connections.close_all()

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(contended, range(8)))
    print(f"appends, one user, 8 threads:    {(n // 8) * 8 / (time.perf_counter() - start):8.0f} events/s")
    return one.id


def bench_difference(user_id: int, rounds: int) -> None:
    from accounts_app.updates import get_account_difference, get_state

    top = get_state(user_id).pts
    times = []
    for i in range(rounds):
        pts = max(0, top - 100 - (i % 50))
        t = time.perf_counter()
        diff = get_account_difference(user_id, pts, pts_limit=100)
        times.append((time.perf_counter() - t) * 1000)
        assert len(diff.events) == 100
    print(f"getDifference page of 100:       p50 {pct(times, 50):6.2f} ms  p99 {pct(times, 99):6.2f} ms")


async def bench_full_stack_logins(n: int) -> None:
    from django.conf import settings

    from edge_app.management.commands.rsakey import write_key
    from mtproto.crypto import RsaKey
    from tests.e2e import harness

    tmp = Path(tempfile.mkdtemp(prefix="bench-accounts-"))
    key_path = tmp / "server_rsa.pem"
    write_key(key_path, RsaKey.generate())
    server = harness.start_edge(
        {"TELESRV_DB_NAME": settings.DATABASES["default"]["NAME"]}, key_path, tmp / "runmtproto.log"
    )
    from asgiref.sync import sync_to_async

    from accounts_app.models import User

    try:
        times = []
        for _ in range(n):
            # One number per login: the server allows 10 codes per number and hour.
            phone, code = harness.fresh_phone()
            await sync_to_async(User.objects.get_or_create)(phone=phone, defaults={"first_name": "Bench"})
            client = harness.make_telethon(server, "abridged")
            t = time.perf_counter()
            await client.connect()
            await client.start(phone=phone, code_callback=lambda code=code: code)
            times.append((time.perf_counter() - t) * 1000)
            await client.disconnect()
        print(
            f"Telethon start() over TCP:       p50 {pct(times, 50):6.0f} ms  p99 {pct(times, 99):6.0f} ms"
            f"  ({n} logins, key exchange included)"
        )
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logins", type=int, default=20)
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--users", type=int, default=40)
    args = parser.parse_args()
    setup_django()
    bench_login(args.logins * 5)
    user_id = bench_appends(args.appends, args.users)
    bench_difference(user_id, 200)
    asyncio.run(bench_full_stack_logins(args.logins))


if __name__ == "__main__":
    main()
