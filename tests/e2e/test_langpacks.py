"""A language pack loaded with the management command and fetched by Telethon with
langpack.getLanguages / getLanguage / getLangPack / getDifference / getStrings."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command

from tests.e2e import harness
from tests.e2e.test_channels import collect, logged_in, make_live_telethon, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


async def test_load_and_fetch_a_language(edge_server, edge_db, clients, tmp_path):
    from telethon import events, functions, types

    _alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    path = tmp_path / "de.strings"
    path.write_text('"lng_a" = "A";\n"lng_n#one" = "ein";\n"lng_n#other" = "viele";\n', encoding="utf-8")
    await sync_to_async(call_command)(
        "loadlangpack", str(path), code="de", pack="tdesktop", name="German", native_name="Deutsch"
    )
    langs = await a(functions.langpack.GetLanguagesRequest(lang_pack="tdesktop"))
    assert [lang.lang_code for lang in langs] == ["en", "de"]
    de = await a(functions.langpack.GetLanguageRequest(lang_pack="tdesktop", lang_code="de"))
    assert de.native_name == "Deutsch" and de.strings_count == 2
    pack = await a(functions.langpack.GetLangPackRequest(lang_pack="tdesktop", lang_code="de"))
    assert pack.version == 1
    by_key = {s.key: s for s in pack.strings}
    assert by_key["lng_a"].value == "A"
    assert (
        isinstance(by_key["lng_n"], types.LangPackStringPluralized) and by_key["lng_n"].other_value == "viele"
    )

    path.write_text('"lng_a" = "AA";\n"lng_b" = "B";\n', encoding="utf-8")
    # a logged-in client showing German is told to fetch the difference
    heard = []
    de_client = make_live_telethon(edge_server)
    clients.append(de_client)
    de_client._init_request.lang_code = "de"
    de_client._init_request.lang_pack = "tdesktop"
    de_client.add_event_handler(collect(heard), events.Raw(types.UpdateLangPackTooLong))
    await de_client.connect()
    await harness.login_telethon(de_client)
    await de_client.get_dialogs()
    await sync_to_async(call_command)(
        "loadlangpack", str(path), code="de", pack="tdesktop", name="German", native_name="Deutsch"
    )
    await wait_for(lambda: heard)
    assert heard[0].lang_code == "de"
    diff = await a(
        functions.langpack.GetDifferenceRequest(lang_pack="tdesktop", lang_code="de", from_version=1)
    )
    assert diff.from_version == 1 and diff.version == 2
    kinds = {s.key: type(s).__name__ for s in diff.strings}
    assert kinds == {"lng_a": "LangPackString", "lng_b": "LangPackString", "lng_n": "LangPackStringDeleted"}
    got = await a(
        functions.langpack.GetStringsRequest(lang_pack="tdesktop", lang_code="de", keys=["lng_b", "x"])
    )
    assert [(s.key, s.value) for s in got] == [("lng_b", "B")]
    english = await a(functions.langpack.GetLangPackRequest(lang_pack="tdesktop", lang_code="en"))
    assert english.strings == []
