"""Loading and serving language packs.

Operators load a language from Telegram's export formats or a JSON object
(``manage.py loadlangpack``): ``.strings`` (Telegram Desktop / iOS: ``"key" = "value";``,
plural forms as ``key#one``), ``.xml`` (Android: ``<string name="key">``, plural forms as
``key_one`` ... ``key_other``) or ``.json`` (``{"key": "value" | {"one": ..., "other":
...}}``). A load is a whole language: keys it no longer has are marked deleted. Every
load that changes something bumps the language's version; the changed keys carry it,
which is what langpack.getDifference sends.

Requests for a pack that has no such language fall back to the shared pack ("").
English with no strings is always offered, so clients keep their built-in texts.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from django.db import transaction

from langpacks_app.models import LangString, Language
from tl.errors import LangCodeNotSupportedError, LangPackInvalidError

PLURAL_FORMS = ("zero", "one", "two", "few", "many", "other")
KEY_MAX = 128
VALUE_MAX = 16384
KEYS_PER_REQUEST_MAX = 1000  # langpack.getStrings
STRINGS_MAX = 50_000  # per language
LANG_PACK_MAX = 32
LANG_CODE = re.compile(r"[a-z]{2,3}(?:[-_][a-z0-9]{2,8})*")


@dataclass(slots=True)
class ParsedString:
    value: str = ""
    plural: dict[str, str] | None = None


@dataclass(slots=True)
class LoadResult:
    language: Language
    added: int = 0
    changed: int = 0
    deleted: int = 0


@dataclass(slots=True)
class Difference:
    lang_code: str
    from_version: int
    version: int
    strings: list[LangString] = field(default_factory=list)


# --- parsing --------------------------------------------------------------------------

_STRINGS_LINE = re.compile(r'"((?:[^"\\]|\\.)*)"\s*=\s*"((?:[^"\\]|\\.)*)"\s*;')
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), s)


def _add(out: dict[str, ParsedString], key: str, value: str, form: str | None) -> None:
    if form is None:
        out.setdefault(key, ParsedString()).value = value
    else:
        entry = out.setdefault(key, ParsedString())
        entry.plural = {**(entry.plural or {}), form: value}


def parse_strings(text: str) -> dict[str, ParsedString]:
    out: dict[str, ParsedString] = {}
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    for m in _STRINGS_LINE.finditer(text):
        key, value = _unescape(m.group(1)), _unescape(m.group(2))
        base, _, form = key.partition("#")
        _add(out, base if form in PLURAL_FORMS else key, value, form if form in PLURAL_FORMS else None)
    return out


def parse_xml(text: str) -> dict[str, ParsedString]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ValueError(f"not an Android strings file: {exc}") from None
    raw: dict[str, str] = {}
    out: dict[str, ParsedString] = {}
    for el in root:
        name = el.get("name")
        if not name:
            continue
        if el.tag == "string":
            raw[name] = _unescape("".join(el.itertext()))
        elif el.tag == "plurals":
            for item in el.findall("item"):
                if item.get("quantity") in PLURAL_FORMS:
                    _add(out, name, _unescape("".join(item.itertext())), item.get("quantity"))
    # Telegram's Android export spells plural forms as key_one ... key_other.
    plural_bases = {k[: -len("_other")] for k in raw if k.endswith("_other")}
    for key, value in raw.items():
        base, _, form = key.rpartition("_")
        if base in plural_bases and form in PLURAL_FORMS:
            _add(out, base, value, form)
        else:
            _add(out, key, value, None)
    return out


def parse_json(text: str) -> dict[str, ParsedString]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("a JSON language pack is an object of key -> string")
    out: dict[str, ParsedString] = {}
    for key, value in data.items():
        if isinstance(value, str):
            out[str(key)] = ParsedString(value=value)
        elif isinstance(value, dict) and isinstance(value.get("other"), str):
            out[str(key)] = ParsedString(plural={f: str(v) for f, v in value.items() if f in PLURAL_FORMS})
        else:
            raise ValueError(f"{key!r}: a string or plural forms with 'other' expected")
    return out


def parse_file(name: str, text: str) -> dict[str, ParsedString]:
    if name.endswith(".strings"):
        return parse_strings(text)
    if name.endswith(".xml"):
        return parse_xml(text)
    if name.endswith(".json"):
        return parse_json(text)
    raise ValueError("a language pack is a .strings, .xml or .json file")


# --- loading --------------------------------------------------------------------------


def _clean(parsed: dict[str, ParsedString]) -> dict[str, ParsedString]:
    out = {}
    for key, s in parsed.items():
        if not key or len(key) > KEY_MAX:
            raise ValueError(f"bad key {key[:40]!r}")
        if s.plural is not None:
            if "other" not in s.plural:
                raise ValueError(f"{key}: plural forms without 'other'")
            s.plural = {f: v[:VALUE_MAX] for f, v in s.plural.items()}
        s.value = s.value[:VALUE_MAX]
        out[key] = s
    if len(out) > STRINGS_MAX:
        raise ValueError(f"more than {STRINGS_MAX} strings")
    return out


def do_load_language(
    lang_pack: str,
    lang_code: str,
    parsed: dict[str, ParsedString],
    *,
    name: str,
    native_name: str,
    plural_code: str = "",
    base_lang_code: str = "",
    rtl: bool = False,
    official: bool = True,
) -> LoadResult:
    """Store a whole language (keys it lacks now are deleted) under a new version."""
    lang_code = lang_code.lower()
    if not LANG_CODE.fullmatch(lang_code) or len(lang_pack) > LANG_PACK_MAX:
        raise ValueError("bad language code or pack name")
    parsed = _clean(parsed)
    with transaction.atomic():
        language, _ = Language.objects.select_for_update().get_or_create(
            lang_pack=lang_pack, lang_code=lang_code, defaults={"name": name, "native_name": native_name}
        )
        version = language.version + 1
        result = LoadResult(language)
        existing = {s.key: s for s in LangString.objects.filter(language=language)}
        new_rows, changed_rows = [], []
        for key, s in parsed.items():
            row = existing.get(key)
            if row is None:
                new_rows.append(
                    LangString(language=language, key=key, value=s.value, plural=s.plural, version=version)
                )
                result.added += 1
            elif row.deleted or row.value != s.value or row.plural != s.plural:
                row.value, row.plural, row.deleted, row.version = s.value, s.plural, False, version
                changed_rows.append(row)
                result.changed += 1
        gone = [r for k, r in existing.items() if k not in parsed and not r.deleted]
        for row in gone:
            row.deleted, row.version = True, version
        result.deleted = len(gone)
        LangString.objects.bulk_create(new_rows, batch_size=1000)
        LangString.objects.bulk_update(
            changed_rows + gone, ["value", "plural", "deleted", "version"], batch_size=1000
        )
        language.name, language.native_name = name, native_name
        language.plural_code = plural_code or lang_code.split("-")[0]
        language.base_lang_code, language.rtl, language.official = base_lang_code, rtl, official
        language.strings_count = len(parsed)
        if result.added or result.changed or result.deleted or language.version == 0:
            language.version = version
        language.save()
    return result


# --- serving --------------------------------------------------------------------------


def _code(lang_code: str) -> str:
    """An empty code is English: Web K asks for lang "" before it has a suggestion."""
    return (lang_code or "").lower() or "en"


def _language(lang_pack: str, lang_code: str) -> Language | None:
    lang_code = _code(lang_code)
    found = {
        lang.lang_pack: lang
        for lang in Language.objects.filter(lang_pack__in=[lang_pack, ""], lang_code=lang_code)
    }
    return found.get(lang_pack) or found.get("")


def languages(lang_pack: str) -> list[Language]:
    """langpack.getLanguages: the pack's languages and the shared ones it lacks;
    English (without strings) when none was loaded."""
    if len(lang_pack) > LANG_PACK_MAX:
        raise LangPackInvalidError()
    by_code: dict[str, Language] = {}
    for lang in Language.objects.filter(lang_pack__in=[lang_pack, ""]).order_by("lang_code")[:500]:
        if lang.lang_code not in by_code or lang.lang_pack == lang_pack:
            by_code[lang.lang_code] = lang
    if "en" not in by_code:
        by_code["en"] = builtin_english()
    return sorted(by_code.values(), key=lambda lang: (lang.lang_code != "en", lang.lang_code))


def builtin_english() -> Language:
    return Language(lang_code="en", name="English", native_name="English", plural_code="en", official=True)


def language(lang_pack: str, lang_code: str) -> Language:
    """langpack.getLanguage. LANG_CODE_NOT_SUPPORTED for one nobody loaded."""
    lang = _language(lang_pack, lang_code)
    if lang is None:
        if _code(lang_code) == "en":
            return builtin_english()
        raise LangCodeNotSupportedError()
    return lang


def suggested_language(lang_pack: str) -> tuple[str, int]:
    """help.getConfig's suggested_lang_code with its version in ``lang_pack``: English,
    the language every deployment serves (version 0 while no pack was loaded)."""
    lang = _language(lang_pack, "en")
    return "en", lang.version if lang is not None else 0


def difference(lang_pack: str, lang_code: str, from_version: int = 0) -> Difference:
    """langpack.getLangPack (from_version 0: every live string) / getDifference (what
    changed since: new and changed strings, deleted keys)."""
    lang = _language(lang_pack, lang_code)
    if lang is None:
        if _code(lang_code) == "en":
            return Difference("en", from_version, from_version)
        raise LangCodeNotSupportedError()
    from_version = max(0, from_version)
    if from_version >= lang.version:
        return Difference(lang.lang_code, from_version, lang.version)
    rows = LangString.objects.filter(language=lang, version__gt=from_version)
    if from_version == 0:
        rows = rows.filter(deleted=False)
    return Difference(lang.lang_code, from_version, lang.version, list(rows.order_by("key")[:STRINGS_MAX]))


def strings(lang_pack: str, lang_code: str, keys: list[str]) -> list[LangString]:
    """langpack.getStrings: the live strings among ``keys``."""
    if len(keys) > KEYS_PER_REQUEST_MAX:
        raise LangPackInvalidError()
    lang = _language(lang_pack, lang_code)
    if lang is None:
        if _code(lang_code) == "en":
            return []
        raise LangCodeNotSupportedError()
    return list(LangString.objects.filter(language=lang, key__in=keys, deleted=False))
