"""Phone numbers as accounts store them: digits only, no leading ``+``."""

from __future__ import annotations

import re

from tl.errors import PhoneNumberInvalidError

_NON_DIGITS = re.compile(r"[\s()+\-.]")
MIN_DIGITS = 5
MAX_DIGITS = 15  # E.164


def normalize_phone(raw: str) -> str:
    """``"+1 (555) 010-2030"`` -> ``"15550102030"``; raises PHONE_NUMBER_INVALID."""
    digits = _NON_DIGITS.sub("", raw or "")
    if not digits.isdigit() or not MIN_DIGITS <= len(digits) <= MAX_DIGITS:
        raise PhoneNumberInvalidError()
    return digits
