"""TL codec throughput on a typical push: an ``updates`` with 20 new channel messages,
their 10 authors and the channel. Prints objects per second for encode and decode in
the primary layer (229) and for layer 224 (the translation path), plus Telethon's own
codec on the same bytes for scale.

    .venv/bin/python bench/bench_tl.py [seconds-per-case]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tl import layers, types
from tl.runtime import Reader, TLObject


def typical_updates() -> types.Updates:
    channel = types.Channel(
        id=1_000_000_123,
        access_hash=-8_111_222_333_444_555,
        title="Python developers",
        username="pydev",
        photo=types.ChatPhoto(photo_id=5_555_555_555, dc_id=2),
        date=1_700_000_000,
        megagroup=True,
        participants_count=12_345,
        default_banned_rights=types.ChatBannedRights(until_date=0, send_polls=True, change_info=True),
    )
    users = [
        types.User(
            id=100 + i,
            access_hash=7_000_000 + i,
            first_name=f"User {i}",
            last_name="Example",
            username=f"user{i}",
            photo=types.UserProfilePhoto(photo_id=9_000 + i, dc_id=2),
            status=types.UserStatusRecently(),
            min=True,
        )
        for i in range(10)
    ]
    updates = []
    for i in range(20):
        text = f"message number {i}: some typical chat text with a link https://example.org/{i}"
        msg = types.Message(
            id=5_000 + i,
            peer_id=types.PeerChannel(channel_id=channel.id),
            from_id=types.PeerUser(user_id=100 + i % 10),
            date=1_700_000_100 + i,
            message=text,
            entities=[
                types.MessageEntityUrl(offset=text.index("https"), length=len(text) - text.index("https"))
            ],
            reply_to=types.MessageReplyHeader(reply_to_msg_id=4_990 + i) if i % 3 == 0 else None,
            replies=types.MessageReplies(replies=0, replies_pts=10 + i),
        )
        updates.append(types.UpdateNewChannelMessage(message=msg, pts=20_000 + i, pts_count=1))
    return types.Updates(updates=updates, users=users, chats=[channel], date=1_700_000_200, seq=0)


def rate(fn, seconds: float, rounds: int = 5) -> float:
    """Calls per second, best of ``rounds``: the machine is shared, the best round is
    the least disturbed one."""
    best = 0.0
    for _ in range(rounds):
        n = 0
        start = time.perf_counter()
        end = start + seconds / rounds
        while True:
            for _ in range(20):
                fn()
            n += 20
            now = time.perf_counter()
            if now >= end:
                break
        best = max(best, n / (now - start))
    return best


def count_objects(o) -> int:
    if isinstance(o, TLObject):
        return 1 + sum(count_objects(getattr(o, f)) for f in o._FIELDS)
    if isinstance(o, list):
        return sum(count_objects(x) for x in o)
    return 0


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    upd = typical_updates()
    b229 = upd.to_bytes()
    b224 = layers.encode(upd, 224)
    assert Reader(b229).read_object() == upd
    per = count_objects(upd)
    print(
        f"typical updates: 20 channel messages, 10 users, 1 channel = {per} TL objects; "
        f"{len(b229)} bytes (229), {len(b224)} bytes (224)"
    )
    cases = [
        ("encode layer 229 (obj.to_bytes)", lambda: upd.to_bytes()),
        ("decode layer 229 (Reader.read_object)", lambda: Reader(b229).read_object()),
        ("encode layer 224 (layers.encode)", lambda: layers.encode(upd, 224)),
        ("decode layer 224 (layers.decode)", lambda: layers.decode(b224, 224)),
    ]
    try:
        from telethon.extensions import BinaryReader

        tele = BinaryReader(b229).tgread_object()
        cases += [
            ("Telethon 1.45 encode (reference)", lambda: bytes(tele)),
            ("Telethon 1.45 decode (reference)", lambda: BinaryReader(b229).tgread_object()),
        ]
    except ImportError:  # pragma: no cover
        pass
    for name, fn in cases:
        r = rate(fn, seconds)
        print(f"{name:40s} {r:8,.0f} updates/s {r * per:12,.0f} TL objects/s")


if __name__ == "__main__":
    main()
