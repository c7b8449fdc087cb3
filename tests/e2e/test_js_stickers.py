"""mtcute (layer 227) with a sticker set a Telethon user made: fetched by short name,
installed, listed among the installed sets and one of its stickers sent to the maker,
who receives it as a sticker of that set."""

from __future__ import annotations

import asyncio
import secrets

import pytest
from asgiref.sync import sync_to_async

from accounts_app.actions import do_create_user
from tests.e2e import harness
from tests.e2e.js_clients import JsClient
from tests.e2e.test_channels import collect, logged_in, wait_for
from tests.e2e.test_js_clients import no_server_errors
from tests.e2e.test_js_clients import node_modules as node_modules  # the fixture
from tests.e2e.test_stickers import create_set, item, short, upload, webp

pytestmark = pytest.mark.django_db(transaction=True)


async def test_mtcute_installs_and_sends_a_user_made_sticker(
    node_modules, edge_server, edge_db, tmp_path, clients
):
    from telethon import events, functions, types

    start = len(edge_server.log())
    _alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    name = short("mt")
    made = await create_set(
        a, "For mtcute", name, [item(await upload(a, webp(), "m.webp", "image/webp"), "🐱")]
    )
    username = f"alice{secrets.token_hex(5)}"
    await a(functions.account.UpdateUsernameRequest(username))  # mtcute finds her by it
    got: list = []
    a.add_event_handler(collect(got, "message"), events.NewMessage())
    await a.get_dialogs()
    phone, code = harness.fresh_phone()
    mia = await sync_to_async(do_create_user)(phone, "Mia")
    js = await JsClient.start("mtcute_client.mjs", edge_server, tmp_path / "mtcute-stickers.log")
    try:
        await asyncio.wait_for(js.call("login", phone=phone, code=code), 30)
        done = await asyncio.wait_for(js.call("stickers", name=name, chat=username), 30)
    finally:
        await js.close()
    assert done["short"] == name and done["emoji"] == ["🐱"] and done["installed"] == [name]
    assert done["media"] == "sticker"
    await wait_for(lambda: got)
    assert got[0].sender_id == mia.id
    doc = got[0].media.document
    assert doc.id == made.documents[0].id
    attr = next(x for x in doc.attributes if isinstance(x, types.DocumentAttributeSticker))
    assert attr.stickerset.id == made.set.id
    no_server_errors(edge_server, start)
