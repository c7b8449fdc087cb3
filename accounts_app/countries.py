"""The countries of the phone screen (help.getCountriesList) and the country a client is
told it is in (help.getNearestDc), from libphonenumber's metadata (``phonenumbers``):
calling codes, the leading digits that tell countries sharing a code apart, and a
grouping pattern made from each country's example number. Names come from the CLDR
names ``phonenumbers`` ships for its geocoder."""

from __future__ import annotations

import functools
import re
import zlib
from dataclasses import dataclass, field

import phonenumbers
from django.conf import settings
from phonenumbers import PhoneMetadata
from phonenumbers.geodata.locale import LOCALE_DATA

# Test numbers (99966XYYYY, settings.TEST_PHONE_NUMBERS): listed under a calling code of
# their own so the apps' phone fields accept them.
TEST_ISO2 = "XT"
TEST_CODE = "999"
TEST_PATTERN = "XX X XXXX"
LANG_CODE_MAX = 16


@dataclass(frozen=True, slots=True)
class CallingCode:
    code: str
    prefixes: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Country:
    iso2: str
    default_name: str  # English
    name: str  # in the asked language, "" when that is English or unknown
    codes: tuple[CallingCode, ...] = field(default_factory=tuple)


def _name(iso2: str, lang: str) -> str:
    names = LOCALE_DATA.get(iso2) or {}
    name = names.get(lang, "")
    for _ in range(5):  # "*xx": the same name as language xx
        if not name.startswith("*"):
            break
        name = names.get(name[1:], "")
    return name


def _pattern(metadata) -> str:
    """'XXX XXX XXXX' from the example number's international grouping."""
    example = (metadata.mobile and metadata.mobile.example_number) or (
        metadata.fixed_line and metadata.fixed_line.example_number
    )
    if not example:
        return ""
    number = phonenumbers.parse(f"+{metadata.country_code}{example}")
    formatted = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
    national = formatted.split(" ", 1)[1] if " " in formatted else ""
    return re.sub(r"\d", "X", re.sub(r"[^\d]+", " ", national)).strip()


@functools.cache
def _countries(lang: str, with_test: bool) -> tuple[Country, ...]:
    out = []
    for iso2 in sorted(phonenumbers.SUPPORTED_REGIONS):
        metadata = PhoneMetadata.metadata_for_region(iso2)
        default_name = _name(iso2, "aa")
        if metadata is None or not default_name:
            continue
        leading = metadata.leading_digits or ""
        prefixes = (leading,) if leading.isdigit() and not metadata.main_country_for_code else ()
        pattern = _pattern(metadata)
        name = _name(iso2, lang) if lang not in ("", "en") else ""
        out.append(
            Country(
                iso2=iso2,
                default_name=default_name,
                name="" if name == default_name else name,
                codes=(CallingCode(str(metadata.country_code), prefixes, (pattern,) if pattern else ()),),
            )
        )
    if with_test:
        out.append(Country(TEST_ISO2, "Test numbers", "", (CallingCode(TEST_CODE, (), (TEST_PATTERN,)),)))
    return tuple(out)


def countries(lang_code: str) -> tuple[list[Country], int]:
    """Every country with its calling codes, named in ``lang_code`` where CLDR has it,
    and the list's hash (clients send it back to learn nothing changed)."""
    lang = (lang_code or "en").lower()[:LANG_CODE_MAX].split("-")[0]
    found = _countries(lang, bool(getattr(settings, "TEST_PHONE_NUMBERS", False)))
    digest = zlib.crc32(repr(found).encode())
    return list(found), digest & 0x7FFFFFFF


def country_of_phone(phone: str) -> str:
    """The ISO country of a number ("" when its calling code is unknown): the region that
    owns the number, else the main one of its calling code."""
    try:
        number = phonenumbers.parse("+" + phone.lstrip("+"))
    except phonenumbers.NumberParseException:
        return ""
    return phonenumbers.region_code_for_number(number) or phonenumbers.region_code_for_country_code(
        number.country_code
    ).replace("ZZ", "")
