"""The MTProto service objects (key exchange, acks, salts, pings...) against Telethon's."""

import random

import pytest
from telethon.extensions import BinaryReader
from telethon.tl import functions as tfunctions
from telethon.tl import types as ttypes

from tl import mt
from tl.codegen import attr_name, mt_class_name, mt_combinators
from tl.runtime import Reader

COMBS = [c for c in mt_combinators() if not c.name.startswith(("tls", "ipPort", "accessPoint", "help."))]


def _value(rng, t, name):
    if name == "info":
        # One status byte per message (1..4 and flags): Telethon reads the field as
        # text, so keep it valid UTF-8 for the round trip through Telethon.
        return bytes(rng.choice([1, 2, 3, 4, 0x14]) for _ in range(rng.randint(0, 5)))
    if t.item is not None:
        return [_value(rng, t.item, name) for _ in range(rng.randint(0, 3))]
    return {
        "int": lambda: rng.randint(1, 2**31 - 1),
        "long": lambda: rng.randint(-(2**63), 2**63 - 1),
        "bytes": lambda: rng.randbytes(rng.choice([0, 8, 255, 260])),
        "string": lambda: rng.choice(["", "INTERNAL", "FLOOD_WAIT_3"]),
        "int128": lambda: rng.randbytes(16),
        "int256": lambda: rng.randbytes(32),
    }.get(t.name, lambda: None)()


def _telethon_class(comb):
    name = mt_class_name(comb)
    if comb.is_function:
        return getattr(tfunctions, name + "Request", None)
    return getattr(ttypes, name, None) or getattr(ttypes, name.replace("DH", "Dh"), None)


@pytest.mark.parametrize("comb", COMBS, ids=lambda c: c.name)
def test_mt_object_matches_telethon(comb):
    tcls = _telethon_class(comb)
    if tcls is None or comb.id != tcls.CONSTRUCTOR_ID:
        pytest.skip(f"Telethon has no {comb.name}")
    rng = random.Random(comb.id)
    for _ in range(5):
        ours_kw, theirs_kw = {}, {}
        for p in comb.params:
            if p.type.item is not None and p.type.item.name == "future_salt":
                salts = [
                    (rng.randint(1, 2**31 - 1), rng.randint(1, 2**31 - 1), rng.randint(1, 2**62))
                    for _ in range(2)
                ]
                ours_kw[p.name] = [mt.FutureSalt(valid_since=a, valid_until=b, salt=c) for a, b, c in salts]
                theirs_kw[p.name] = [
                    ttypes.FutureSalt(valid_since=a, valid_until=b, salt=c) for a, b, c in salts
                ]
                continue
            v = _value(rng, p.type, p.name)
            ours_kw[attr_name(p.name)] = v
            if p.type.name in ("int128", "int256"):
                v = int.from_bytes(v, "little", signed=True)
            theirs_kw[p.name] = v
        ours = getattr(mt, mt_class_name(comb))(**ours_kw)
        theirs = bytes(tcls(**theirs_kw))
        assert ours.to_bytes() == theirs
        assert Reader(theirs).read_object() == ours
        assert bytes(BinaryReader(ours.to_bytes()).tgread_object()) == theirs
