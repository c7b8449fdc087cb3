"""End-to-end fixtures: the real listener as a subprocess on the pytest-django test
database, and factories for real clients (helpers in tests/e2e/harness.py).

Fixtures
    edge_server          the running ``manage.py runmtproto`` (session-wide): .host, .port,
                         .public_pem, .log(), .alive()
    start_edge_server    factory for more server processes on the same DB (restart, 2nd edge)
    edge_db              ORM access from the test, committed for real (the server sees it)
    telethon_client      ``await telethon_client("full"|"abridged"|"intermediate"|"obfuscated",
                         session=None, receive_updates=False, server=None)`` -> connected client
    telethon_user        ``await telethon_user(first_name="Test", transport="abridged",
                         receive_updates=False, phone=None)`` -> (client, me, phone), logged in
    kurigram_client      ``await kurigram_client("abridged"|"obfuscated"|...)`` -> connected
    raw_client           ``await raw_client(kind=..., obfuscated=...)`` -> RawClient on a fresh key
    old_telethon_python  python of a venv with Telethon 1.43.2 (layer 224): run a script with it

    async def test_something(telethon_user, edge_db):
        client, me, phone = await telethon_user("Ada")
        ...

Logging in by hand: ``harness.fresh_phone()`` gives a test number (99966XYYYY, code
XXXXX; the server runs with TELESRV_TEST_PHONE_NUMBERS=1) and
``await harness.login_telethon(client, phone)`` signs in or up.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

import pytest

from tests.e2e import harness

# Tests read and write the database with the ORM from async test functions; the server
# subprocess is started without this.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

OLD_TELETHON = "Telethon==1.43.2"  # layer 224


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(autouse=True)
def referenced_ids_present(request):
    """Every answer and pushed update a real client receives in an e2e test names only
    users / chats it carries (tests/e2e/referenced.py), and the shared server's own
    check on the way out (edge_app.peer_check) logged nothing during the test."""
    from tests.e2e import referenced

    server = request.getfixturevalue("edge_server") if "edge_server" in request.fixturenames else None
    start = len(server.log()) if server is not None else 0
    violations: list = []
    restore = referenced.install(violations)
    yield violations
    restore()
    assert not violations, f"ids referenced but not carried: {violations[:10]}"
    if server is not None:
        logged = [line for line in server.log()[start:].splitlines() if "telesrv.edge.peer_check" in line]
        assert not logged, f"the server sent updates without their peers: {logged[:10]}"


@pytest.fixture(scope="session")
def edge_rsa_key(tmp_path_factory):
    from edge_app.management.commands.rsakey import write_key
    from mtproto.crypto import RsaKey

    path = tmp_path_factory.mktemp("edge-key") / "server_rsa.pem"
    write_key(path, RsaKey.generate())
    return path


@pytest.fixture(scope="session")
def sfu_node(tmp_path_factory):
    """The session's Janus SFU node (tests/e2e/sfu_node.py), None without Janus."""
    import warnings

    from tests.e2e import sfu_node

    try:
        node = sfu_node.start(tmp_path_factory.mktemp("sfu"))
    except RuntimeError as e:  # only the group-call tests need it: they fail, not the rest
        warnings.warn(f"no SFU node for this session: {e}", stacklevel=1)
        node = None
    yield node
    if node is not None:
        node.stop()


@pytest.fixture(scope="session")
def edge_env(django_db_setup, tmp_path_factory, sfu_node):
    """Environment for a server subprocess: the migrated test database of this run, a
    media directory of its own, and the session's SFU node for group calls."""
    from django.conf import settings

    return {
        "TELESRV_DB_NAME": settings.DATABASES["default"]["NAME"],
        "TELESRV_MEDIA_DIR": str(tmp_path_factory.mktemp("edge-media")),
        # Link previews of pages the tests serve on this machine.
        "TELESRV_LINK_PREVIEW_ALLOW": "127.0.0.1",
        **({"TELESRV_SFU_NODES": f"test={sfu_node.url}"} if sfu_node else {}),
    }


@pytest.fixture(scope="session")
def edge_server(edge_env, edge_rsa_key, tmp_path_factory):
    """The running ``manage.py runmtproto`` (one per test session)."""
    log_path = tmp_path_factory.mktemp("edge-log") / "runmtproto.log"
    server = harness.start_edge(edge_env, edge_rsa_key, log_path)
    yield server
    server.stop()


@pytest.fixture
def start_edge_server(edge_env, edge_rsa_key, tmp_path):
    """Factory for extra server processes on the same database (restarts, several edges)."""
    started = []

    def start() -> harness.EdgeServer:
        server = harness.start_edge(edge_env, edge_rsa_key, tmp_path / f"runmtproto-{len(started)}.log")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
async def edge_db(django_db_blocker):
    """ORM access from the test (sync, or async ``aget``/``acount``...), outside any test
    transaction, so the server sees what the test writes and the test sees what the
    server wrote. Nothing is rolled back: use fresh phone numbers / names per test."""
    from asgiref.sync import sync_to_async
    from django.db import connections

    with django_db_blocker.unblock():
        yield
        # The async ORM runs in a helper thread: close its connection, or the test
        # database cannot be dropped at the end of the run.
        await sync_to_async(connections.close_all)()


@pytest.fixture
async def telethon_client(edge_server):
    """``await telethon_client(transport="full", session=None, connect=True,
    receive_updates=False)``: a Telethon 1.45 client on the test server (transports: full,
    abridged, intermediate, obfuscated); disconnected after the test. Pass
    ``receive_updates=True`` for a client that gets pushed updates."""
    clients = []

    async def make(
        transport: str = "full",
        session=None,
        connect: bool = True,
        server=None,
        receive_updates: bool = False,
    ):
        client = harness.make_telethon(server or edge_server, transport, session, receive_updates)
        clients.append(client)
        if connect:
            await client.connect()
        return client

    yield make
    for client in clients:
        await client.disconnect()


@pytest.fixture
async def telethon_user(telethon_client):
    """``await telethon_user(first_name="Test", transport="abridged", receive_updates=False,
    phone=None)``: a Telethon client logged in as a new user (or as ``phone``'s user);
    returns (client, me, phone)."""

    async def make(
        first_name: str = "Test", transport: str = "abridged", receive_updates: bool = False, phone=None
    ):
        phone = phone or harness.fresh_phone()[0]
        client = await telethon_client(transport, receive_updates=receive_updates)
        me = await harness.login_telethon(client, phone, first_name=first_name)
        return client, me, phone

    return make


@pytest.fixture
async def kurigram_client(edge_server):
    """``await kurigram_client(transport="abridged", connect=True)``: a Kurigram 2.2.26
    client on the test server (transports: abridged, intermediate, full, obfuscated)."""
    clients = []
    counter = [0]

    async def make(transport: str = "abridged", connect: bool = True, **kwargs):
        counter[0] += 1
        client = harness.make_kurigram(edge_server, transport, name=f"e2e{counter[0]}", **kwargs)
        if connect:
            await client.connect()
            clients.append(client)
        return client

    yield make
    for client in clients:
        if client.is_connected:
            await client.disconnect()


@pytest.fixture
async def raw_client(edge_server, telethon_client):
    """``await raw_client(kind="intermediate", obfuscated=False)``: a :class:`RawClient`
    on a fresh auth key (created by Telethon), connected, salt learned."""
    raws = []

    async def make(kind: str = "intermediate", obfuscated: bool = False, handshake: bool = True):
        creator = await telethon_client("full")
        key = creator.session.auth_key.key
        await creator.disconnect()
        raw = await harness.RawClient(
            edge_server.host, edge_server.port, key, kind=kind, obfuscated=obfuscated
        ).connect()
        raws.append(raw)
        if handshake:
            await raw.handshake()
        return raw

    yield make
    for raw in raws:
        raw.close()


@pytest.fixture(scope="session")
def old_telethon_python():
    """The python of a cached venv with Telethon 1.43.2 (layer 224)."""
    from tests.support.client_venvs import client_python

    return client_python(OLD_TELETHON)


@pytest.fixture
async def clients(edge_server):
    """Clients made by the test (disconnected after it); the server log of the test
    must show no error or traceback."""
    start = len(edge_server.log())
    made: list = []
    yield made
    for c in made:
        await c.disconnect()
    new = edge_server.log()[start:]
    trouble = [line for line in new.splitlines() if "Traceback" in line or " ERROR " in line]
    assert not trouble, new[-3000:]


@pytest.fixture(scope="session")
def botapi_server(edge_server, edge_env, tmp_path_factory):
    """The running ``manage.py runbotapi`` beside the test listener (one per session)."""
    from tests.e2e.botapi_fixtures import start_botapi

    server = start_botapi(edge_env, tmp_path_factory.mktemp("botapi-log") / "runbotapi.log")
    yield server
    server.stop()


@pytest.fixture
async def stacks():
    """The py-tgcalls stacks a call-media test started. Each leaves every call it still
    holds while the test's event loop runs: ntgcalls' native threads call back into the
    loop a stack was started on (a stream's end, a connection's state), and a call left
    running into the next test called back into a closed loop and crashed the process."""
    started: list = []
    yield started
    for app in started:
        for chat_id in list(await app.calls):
            with contextlib.suppress(Exception):
                await app.leave_call(chat_id)
    await asyncio.sleep(0.5)  # the stopped calls' last callbacks land on this loop
