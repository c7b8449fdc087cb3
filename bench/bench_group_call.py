"""Group-call SFU benchmark: prints figures (not a test).

One Janus node (``make sfu``; started here like the e2e suite's, tests/e2e/sfu_node.py),
one group call: one speaker playing a tone and N listen-only participants, each an
ntgcalls instance (Telegram's group-call WebRTC stack) joined through
``calls_app.sfu.join``. Janus' CPU (utime+stime from /proc) is sampled over a steady
window and divided by the streams it serves: every listener receives the room's mix
(one Opus stream encoded for it) and the speaker's stream is decoded once.

    .venv/bin/python bench/bench_group_call.py --listeners 4 8 16 --seconds 10

The call stacks run in this process and share this box's cores with Janus: the figure
that matters is Janus' own CPU per participant-stream, and whether every listener still
hears the tone (the last column).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bench.env  # noqa: E402, F401  (before Django)


def _django():
    import django

    django.setup()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def one_call(node, listeners: int, seconds: float, tone: Path) -> dict:
    from ntgcalls import ConnectionState

    from calls_app import sfu
    from tests.e2e.test_calls_media import _peak_frequency
    from tests.e2e.test_group_calls_media import RATE, TONE, Member

    call_id = secrets.randbelow(2**40) + 1
    speaker = Member(call_id)
    members = [speaker] + [Member(call_id) for _ in range(listeners)]
    try:
        await speaker.join(tone)
        for m in members[1:]:
            await m.join()
        deadline = time.monotonic() + 90
        while not all(ConnectionState.CONNECTED in m.states for m in members):
            if time.monotonic() > deadline:
                break  # measured with those connected; the table says how many heard
            await asyncio.sleep(0.2)
        connected = sum(ConnectionState.CONNECTED in m.states for m in members)
        await asyncio.sleep(3)  # past the jitter buffers' start
        starts = [len(m.heard) for m in members]
        c0, t0 = cpu_seconds(node.proc.pid), time.monotonic()
        await asyncio.sleep(seconds)
        c1, t1 = cpu_seconds(node.proc.pid), time.monotonic()
        hearing, heard = 0, []
        for m, s in zip(members[1:], starts[1:], strict=True):
            freq, rms = _peak_frequency(bytes(m.heard[s:]))
            heard.append((round(len(m.heard[s:]) / (2 * RATE * seconds), 2), round(freq), round(rms)))
            hearing += abs(freq - TONE) < 25 and rms > 1000
        cpu = (c1 - c0) / (t1 - t0)
        streams = listeners + 1  # one mix out per listener, the speaker's stream in
        return {"listeners": listeners, "janus_cpu_pct": 100 * cpu, "per_stream_pct": 100 * cpu / streams,
                "hearing": hearing, "connected": connected, "received_s_per_s_freq_rms": heard}  # fmt: skip
    finally:
        for m in members:
            await m.stop()
        await sfu.end_call("bench", call_id)
        await asyncio.sleep(1)


async def main() -> None:
    _django()
    from django.conf import settings

    from tests.e2e import sfu_node
    from tests.e2e.test_calls_media import _tone
    from tests.e2e.test_group_calls_media import TONE

    ap = argparse.ArgumentParser()
    ap.add_argument("--listeners", type=int, nargs="+", default=[4, 8, 16])
    ap.add_argument("--seconds", type=float, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        node = sfu_node.start(Path(tmp))
        if node is None:
            sys.exit("Janus is not installed: make sfu")
        settings.SFU_NODES = [f"bench={node.url}"]
        tone = Path(tmp) / "tone.pcm"
        _tone(tone, TONE, int(args.seconds) + 120)
        try:
            idle0, t0 = cpu_seconds(node.proc.pid), time.monotonic()
            await asyncio.sleep(3)
            idle = (cpu_seconds(node.proc.pid) - idle0) / (time.monotonic() - t0)
            print(f"Janus 1.1.2 AudioBridge, Opus 48 kHz, {os.cpu_count()} cores shared with the call stacks")
            print(f"idle Janus: {100 * idle:.1f}% of one core")
            print(f"{'listeners':>9} {'Janus CPU %':>12} {'% per stream':>13} {'hear tone':>10}")
            for n in args.listeners:
                r = await one_call(node, n, args.seconds, tone)
                print(json.dumps(r), file=sys.stderr)
                print(
                    f"{n:>9} {r['janus_cpu_pct']:>12.1f} {r['per_stream_pct']:>13.2f} {r['hearing']:>6}/{n}"
                )
        finally:
            node.stop()


if __name__ == "__main__":
    asyncio.run(main())
