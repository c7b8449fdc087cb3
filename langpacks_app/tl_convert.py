"""Language packs -> TL."""

from __future__ import annotations

from langpacks_app.models import LangString, Language
from langpacks_app.packs import Difference
from tl import types


def language_to_tl(lang: Language):
    return types.LangPackLanguage(
        official=lang.official or None,
        rtl=lang.rtl or None,
        name=lang.name,
        native_name=lang.native_name,
        lang_code=lang.lang_code,
        base_lang_code=lang.base_lang_code or None,
        plural_code=lang.plural_code or lang.lang_code,
        strings_count=lang.strings_count,
        translated_count=lang.strings_count,
        translations_url=lang.translations_url,
    )


def string_to_tl(s: LangString):
    if s.deleted:
        return types.LangPackStringDeleted(key=s.key)
    if s.plural is not None:
        p = s.plural
        return types.LangPackStringPluralized(
            key=s.key,
            zero_value=p.get("zero"),
            one_value=p.get("one"),
            two_value=p.get("two"),
            few_value=p.get("few"),
            many_value=p.get("many"),
            other_value=p.get("other", ""),
        )
    return types.LangPackString(key=s.key, value=s.value)


def difference_to_tl(d: Difference):
    return types.LangPackDifference(
        lang_code=d.lang_code,
        from_version=d.from_version,
        version=d.version,
        strings=[string_to_tl(s) for s in d.strings],
    )


def lang_pack_too_long_to_tl(lang_code: str):
    import time

    return types.UpdateShort(update=types.UpdateLangPackTooLong(lang_code=lang_code), date=int(time.time()))
