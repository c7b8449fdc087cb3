"""Connections a PostgreSQL restart killed are replaced before use: the ORM's (the
listener has no requests around which Django would recycle them) and the pools'."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection

from edge_app.keystore import conninfo
from message_core import db as channel_db

pytestmark = pytest.mark.django_db(transaction=True)


def terminate(pid: int) -> None:
    with psycopg.connect(conninfo(), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    time.sleep(0.2)  # the FATAL message and the FIN reach the client socket


def backend_pid() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        return cur.fetchone()[0]


def test_orm_connection_killed_by_the_server_is_replaced():
    pid = backend_pid()
    terminate(pid)
    assert backend_pid() != pid  # no OperationalError: a fresh connection


async def test_pooled_connection_killed_by_the_server_is_replaced():
    try:
        first = (await channel_db.fetchone("SELECT pg_backend_pid() AS pid"))["pid"]
        terminate(first)
        again = (await channel_db.fetchone("SELECT pg_backend_pid() AS pid"))["pid"]
        assert again != first
    finally:
        await channel_db.close_pools()
