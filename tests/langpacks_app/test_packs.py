"""Language packs: Telegram's .strings / Android .xml exports and JSON parse to the same
strings; reloads bump the version and getDifference returns exactly what changed."""

from __future__ import annotations

import pytest

from langpacks_app import packs
from tl.errors import LangCodeNotSupportedError

STRINGS = r"""
/* a comment */
"lng_hello" = "Hallo \"Welt\"";
"lng_members#one" = "{count} Mitglied";
"lng_members#other" = "{count} Mitglieder";
"lng_multi" = "eins\nzwei";
"""
XML = """<?xml version="1.0" encoding="utf-8"?>
<resources>
  <string name="Hello">Hallo</string>
  <string name="Members_one">%1$d Mitglied</string>
  <string name="Members_other">%1$d Mitglieder</string>
  <string name="Only_one">not a plural: no _other form</string>
  <plurals name="Days"><item quantity="one">%d Tag</item><item quantity="other">%d Tage</item></plurals>
</resources>"""


def test_formats_parse_plain_and_plural_strings():
    s = packs.parse_strings(STRINGS)
    assert s["lng_hello"].value == 'Hallo "Welt"' and s["lng_multi"].value == "eins\nzwei"
    assert s["lng_members"].plural == {"one": "{count} Mitglied", "other": "{count} Mitglieder"}
    x = packs.parse_xml(XML)
    assert x["Hello"].value == "Hallo" and x["Members"].plural["other"] == "%1$d Mitglieder"
    assert x["Only_one"].value.startswith("not a plural") and x["Days"].plural["one"] == "%d Tag"
    j = packs.parse_json('{"a": "b", "n": {"one": "1", "other": "many"}}')
    assert j["a"].value == "b" and j["n"].plural == {"one": "1", "other": "many"}
    with pytest.raises(ValueError):
        packs.parse_json('{"n": {"one": "1"}}')
    with pytest.raises(ValueError):
        packs.parse_file("pack.txt", "")


@pytest.mark.django_db
def test_versions_and_differences():
    first = packs.do_load_language(
        "tdesktop", "de", packs.parse_strings(STRINGS), name="German", native_name="Deutsch"
    )
    assert first.language.version == 1 and first.added == 3
    full = packs.difference("tdesktop", "de", 0)
    assert full.version == 1 and {s.key for s in full.strings} == {"lng_hello", "lng_members", "lng_multi"}

    changed = {**packs.parse_strings(STRINGS), "lng_new": packs.ParsedString("Neu")}
    changed["lng_hello"] = packs.ParsedString("Hallo")
    del changed["lng_multi"]
    second = packs.do_load_language("tdesktop", "de", changed, name="German", native_name="Deutsch")
    assert (second.added, second.changed, second.deleted, second.language.version) == (1, 1, 1, 2)
    diff = packs.difference("tdesktop", "de", 1)
    assert {(s.key, s.deleted) for s in diff.strings} == {
        ("lng_new", False),
        ("lng_hello", False),
        ("lng_multi", True),
    }
    assert packs.difference("tdesktop", "de", 2).strings == []
    # the same load again changes nothing and keeps the version
    assert (
        packs.do_load_language(
            "tdesktop", "de", changed, name="German", native_name="Deutsch"
        ).language.version
        == 2
    )

    # a pack without German falls back to the shared pack only
    assert [lang.lang_code for lang in packs.languages("android")] == ["en"]
    packs.do_load_language("", "fr", {"k": packs.ParsedString("v")}, name="French", native_name="Français")
    assert [lang.lang_code for lang in packs.languages("android")] == ["en", "fr"]
    assert packs.language("android", "fr").lang_pack == ""
    with pytest.raises(LangCodeNotSupportedError):
        packs.language("android", "de")
    assert [s.key for s in packs.strings("tdesktop", "de", ["lng_new", "lng_multi", "nope"])] == ["lng_new"]
