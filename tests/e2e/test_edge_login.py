"""The harness's logged-in client, and online push reaching a second device of the user
through Redis and the edge's session registry."""

from __future__ import annotations

import asyncio

from tests.e2e.harness import fresh_phone, login_telethon


async def test_logged_in_client_and_push_to_another_device(telethon_user, telethon_client, edge_db):
    from telethon import events, functions, types

    first, me, phone = await telethon_user("Ada")
    assert (await first.get_me()).id == me.id and me.first_name == "Ada"

    # A second device of the same account, one that takes updates.
    second = await telethon_client("intermediate", receive_updates=True)
    assert (await login_telethon(second, phone)).id == me.id
    got = asyncio.get_running_loop().create_future()

    @second.on(events.Raw(types.UpdateUserName))
    async def on_update(update):
        if not got.done():
            got.set_result(update)

    await second(functions.updates.GetStateRequest())
    await first(functions.account.UpdateProfileRequest(first_name="Grace"))
    update = await asyncio.wait_for(got, 10)
    assert (update.user_id, update.first_name) == (me.id, "Grace")


async def test_push_crosses_edge_processes(telethon_client, start_edge_server, edge_db):
    from telethon import events, functions, types
    from telethon.sessions import MemorySession

    phone, _code = fresh_phone()
    first = await telethon_client("full")
    me = await login_telethon(first, phone, first_name="Lin")

    other_edge = start_edge_server()
    session = MemorySession()
    session.set_dc(2, other_edge.host, other_edge.port)
    second = await telethon_client("abridged", session=session, server=other_edge, receive_updates=True)
    await login_telethon(second, phone)
    got = asyncio.get_running_loop().create_future()

    @second.on(events.Raw(types.UpdateUserName))
    async def on_update(update):
        if not got.done():
            got.set_result(update)

    await second(functions.updates.GetStateRequest())
    await first(functions.account.UpdateProfileRequest(first_name="Mei"))
    update = await asyncio.wait_for(got, 10)
    assert (update.user_id, update.first_name) == (me.id, "Mei")
