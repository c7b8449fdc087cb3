"""The emoji a sticker stands for: split into single emoji (a sticker pack lists each),
checked to be emoji at all."""

from __future__ import annotations

ZWJ = 0x200D
KEYCAP = 0x20E3
EMOJI_MAX = 20  # emoji per sticker, as Telegram's sticker bot allows
TEXT_MAX = 64


def _joins(cp: int) -> bool:
    """Code points that extend the emoji before them instead of starting one."""
    return (
        cp == ZWJ
        or cp == KEYCAP
        or 0xFE00 <= cp <= 0xFE0F  # variation selectors
        or 0x1F3FB <= cp <= 0x1F3FF  # skin tones
        or 0xE0020 <= cp <= 0xE007F  # tag sequences (subdivision flags)
    )


def _regional(cp: int) -> bool:
    return 0x1F1E6 <= cp <= 0x1F1FF


def split(text: str) -> list[str]:
    out: list[str] = []
    prev = 0
    for ch in text:
        cp = ord(ch)
        if out and (_joins(cp) or prev == ZWJ or (_regional(cp) and _regional(prev) and len(out[-1]) == 1)):
            out[-1] += ch
        else:
            out.append(ch)
        prev = cp
    return out


def _is_emoji(cluster: str) -> bool:
    first = ord(cluster[0])
    if first in (0x23, 0x2A) or 0x30 <= first <= 0x39:  # keycaps: #, *, digits
        return len(cluster) > 1 and ord(cluster[-1]) == KEYCAP
    return first >= 0x2000 and not 0x3000 <= first <= 0xFDFF


def clean(text: str) -> list[str] | None:
    """The single emoji of ``text`` (whitespace ignored), or None when it holds none or
    anything else."""
    text = "".join((text or "").split())
    if not text or len(text) > TEXT_MAX:
        return None
    parts = list(dict.fromkeys(split(text)))
    if not parts or len(parts) > EMOJI_MAX or not all(_is_emoji(p) for p in parts):
        return None
    return parts
