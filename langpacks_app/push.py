"""Telling connected clients that a language they show changed: after a load, each edge
sends ``updateLangPackTooLong`` to its logged-in sessions whose initConnection named
that pack and language; the client then asks langpack.getDifference."""

from __future__ import annotations

from typing import Any

from edge_app.push import deliver, publish, subscriber
from langpacks_app import tl_convert

KIND = "langpacks.changed"


async def announce_change(lang_pack: str, lang_code: str) -> None:
    await publish(KIND, {"lang_pack": lang_pack, "lang_code": lang_code})


@subscriber(KIND)
async def _language_changed(payload: dict, edge: Any) -> None:
    pack, code = payload["lang_pack"], payload["lang_code"]
    update = None
    for user_id in edge.online_user_ids():
        for session in edge.sessions_of_user(user_id):
            client = getattr(session, "client", None)
            if client is None or client.lang_code.lower() != code or (pack and client.lang_pack != pack):
                continue
            update = update or tl_convert.lang_pack_too_long_to_tl(code)
            await deliver(session, update)
