"""An upload whose parts arrive on different listener processes (Telegram Desktop
uploads over several connections; behind a balancer they land on different listeners)
assembles into one file. The listeners share the upload parts directory
(TELESRV_UPLOADS_DIR: on one machine by default, across machines a shared filesystem;
docs/operations.md, "Several machines")."""

from __future__ import annotations

import os
import random

import pytest

from tests.e2e import harness

pytestmark = pytest.mark.django_db(transaction=True)

PART = 32 * 1024


async def test_parts_sent_through_two_listeners_make_one_file(telethon_user, start_edge_server, edge_db):
    from telethon import functions, types
    from telethon.sessions import StringSession

    a, me, _ = await telethon_user("Uploader")
    other = start_edge_server()
    # The same account and auth key, on a connection to the second listener.
    b = harness.make_telethon(other, "abridged", StringSession(StringSession.save(a.session)))
    await b.connect()
    try:
        assert (await b.get_me()).id == me.id
        blob = os.urandom(3 * PART + 1000)
        file_id = random.getrandbits(63)
        parts = [blob[i : i + PART] for i in range(0, len(blob), PART)]
        for n, chunk in enumerate(parts):
            via = a if n % 2 == 0 else b  # 0 and 2 on the first listener, 1 and 3 on the second
            assert await via(functions.upload.SaveFilePartRequest(file_id, n, chunk))
        sent = await b(
            functions.messages.SendMediaRequest(
                peer=types.InputPeerSelf(),
                media=types.InputMediaUploadedDocument(
                    file=types.InputFile(file_id, len(parts), "across.bin", md5_checksum=""),
                    mime_type="application/octet-stream",
                    attributes=[types.DocumentAttributeFilename("across.bin")],
                ),
                message="",
                random_id=random.getrandbits(63),
            )
        )
        msg_id = next(u.id for u in sent.updates if isinstance(u, types.UpdateMessageID))
        (msg,) = await a.get_messages("me", ids=[msg_id])
        assert msg.document.size == len(blob)
        assert await a.download_media(msg, file=bytes) == blob
    finally:
        await b.disconnect()
