"""Telegram's group-call join JSON <-> SDP, the SFU's terms.

A Telegram client never speaks SDP to its group-call server: it sends its ICE
credentials, its DTLS fingerprint (as DTLS server, "passive"), its audio SSRC and its
video SSRC groups (simulcast + FID), and expects the server's transport (ICE
credentials, fingerprint, candidates) and the payload types / header extensions to use,
as JSON in the shape of Jitsi's COLIBRI. This module writes the SDP offer the client
would have made, and reads the SFU's SDP answer back into that JSON.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field

# What Telegram's clients (tgcalls, ntgcalls) send and decode: Opus at 111 (ntgcalls
# opens a receiving channel only for packets of payload type 111), the audio-level and
# absolute-send-time / transport-wide-cc extensions.
OPUS = {"id": 111, "name": "opus", "clockrate": 48000, "channels": 2}
OPUS_FMTP = "minptime=10;useinbandfec=1"
AUDIO_EXTS = [
    (1, "urn:ietf:params:rtp-hdrext:ssrc-audio-level"),
    (3, "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"),
]
VP8 = {"id": 100, "name": "VP8", "clockrate": 90000}
RTX = {"id": 101, "name": "rtx", "clockrate": 90000}
VIDEO_EXTS = [
    (2, "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"),
    (3, "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"),
    (13, "urn:3gpp:video-orientation"),
]


class BadJoinParams(ValueError):
    pass


def _u32(v) -> int:
    """Telegram's JSON carries SSRCs as signed 32-bit integers."""
    return int(v) & 0xFFFFFFFF


@dataclass
class JoinParams:
    ufrag: str
    pwd: str
    hash: str
    fingerprint: str
    setup: str
    audio_ssrc: int
    video_groups: list[tuple[str, list[int]]] = field(default_factory=list)

    @classmethod
    def parse(cls, params: dict) -> JoinParams:
        try:
            fp = (params.get("fingerprints") or [])[0]
            groups = [
                (str(g["semantics"]), [_u32(s) for s in g["sources"]])
                for g in params.get("ssrc-groups") or []
            ]
            return cls(
                ufrag=str(params["ufrag"]), pwd=str(params["pwd"]), hash=str(fp["hash"]),
                fingerprint=str(fp["fingerprint"]), setup=str(fp.get("setup") or "passive"),
                audio_ssrc=_u32(params["ssrc"]), video_groups=groups,
            )  # fmt: skip
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise BadJoinParams(str(e)) from e

    def video_ssrcs(self) -> list[int]:
        seen: list[int] = []
        for _, sources in self.video_groups:
            seen += [s for s in sources if s not in seen]
        return seen


def offer_for(p: JoinParams, *, audio: bool = True, video: bool = False) -> str:
    """The SDP offer of the client described by ``p`` (its own ICE and DTLS, its SSRCs)."""
    cname = secrets.token_hex(8)
    mids = ([str(0)] if audio else []) + (["1"] if video else [])
    lines = [
        "v=0",
        f"o=- {secrets.randbelow(2**62)} 2 IN IP4 127.0.0.1",
        "s=-",
        "t=0 0",
        f"a=group:BUNDLE {' '.join(mids)}",
        "a=msid-semantic: WMS *",
    ]

    def transport(mid: str) -> list[str]:
        return [
            "c=IN IP4 0.0.0.0",
            "a=rtcp:9 IN IP4 0.0.0.0",
            f"a=ice-ufrag:{p.ufrag}",
            f"a=ice-pwd:{p.pwd}",
            f"a=fingerprint:{p.hash} {p.fingerprint}",
            f"a=setup:{p.setup}",
            f"a=mid:{mid}",
        ]

    if audio:
        lines += [f"m=audio 9 UDP/TLS/RTP/SAVPF {OPUS['id']}", *transport("0")]
        lines += [f"a=extmap:{i} {uri}" for i, uri in AUDIO_EXTS]
        lines += [
            "a=sendrecv",
            "a=rtcp-mux",
            f"a=rtpmap:{OPUS['id']} opus/48000/2",
            f"a=fmtp:{OPUS['id']} {OPUS_FMTP}",
            f"a=rtcp-fb:{OPUS['id']} transport-cc",
            f"a=ssrc:{p.audio_ssrc} cname:{cname}",
        ]
    if video:
        ssrcs = p.video_ssrcs()
        lines += [f"m=video 9 UDP/TLS/RTP/SAVPF {VP8['id']} {RTX['id']}", *transport("1")]
        lines += [f"a=extmap:{i} {uri}" for i, uri in VIDEO_EXTS]
        lines += [
            "a=sendrecv",
            "a=rtcp-mux",
            f"a=rtpmap:{VP8['id']} VP8/90000",
            f"a=rtcp-fb:{VP8['id']} goog-remb",
            f"a=rtcp-fb:{VP8['id']} transport-cc",
            f"a=rtcp-fb:{VP8['id']} ccm fir",
            f"a=rtcp-fb:{VP8['id']} nack",
            f"a=rtcp-fb:{VP8['id']} nack pli",
            f"a=rtpmap:{RTX['id']} rtx/90000",
            f"a=fmtp:{RTX['id']} apt={VP8['id']}",
        ]
        lines += [f"a=ssrc-group:{sem} {' '.join(map(str, src))}" for sem, src in p.video_groups]
        lines += [f"a=ssrc:{s} cname:{cname}" for s in ssrcs]
    return "\r\n".join(lines) + "\r\n"


_CANDIDATE = re.compile(
    r"candidate:(\S+) (\d+) (\S+) (\d+) (\S+) (\d+) typ (\S+)(?: raddr \S+ rport \d+)?(.*)"
)


def _payload_types(section: list[str], kind: str) -> list[dict]:
    rtpmap = {}
    fmtp: dict[str, dict] = {}
    fbs: dict[str, list] = {}
    for line in section:
        if m := re.match(r"a=rtpmap:(\d+) ([^/]+)/(\d+)(?:/(\d+))?", line):
            rtpmap[m.group(1)] = m.groups()[1:]
        elif m := re.match(r"a=fmtp:(\d+) (.*)", line):
            fmtp[m.group(1)] = dict(kv.split("=", 1) for kv in m.group(2).split(";") if "=" in kv)
        elif m := re.match(r"a=rtcp-fb:(\d+) (\S+)(?: (\S+))?", line):
            fb = {"type": m.group(2)}
            if m.group(3):
                fb["subtype"] = m.group(3)
            fbs.setdefault(m.group(1), []).append(fb)
    out = []
    for pt, (name, rate, channels) in rtpmap.items():
        item: dict = {"id": int(pt), "name": name, "clockrate": int(rate)}
        if channels:
            item["channels"] = int(channels)
        if pt in fmtp:
            item["parameters"] = {k.strip(): v.strip() for k, v in fmtp[pt].items()}
        if pt in fbs:
            item["rtcp-fbs"] = fbs[pt]
        out.append(item)
    return out


def answer_to_json(sdp: str) -> dict:
    """The SFU's SDP answer as Telegram's media-server JSON (updateGroupCallConnection)."""
    sections: list[list[str]] = [[]]
    for line in sdp.replace("\r\n", "\n").split("\n"):
        if line.startswith("m="):
            sections.append([])
        if line:
            sections[-1].append(line)
    session, media = sections[0], sections[1:]

    def attr(name: str, where: list[str]) -> str | None:
        for line in where:
            if line.startswith(f"a={name}:"):
                return line.split(":", 1)[1].strip()
        return None

    first = media[0] if media else []
    ufrag = attr("ice-ufrag", first) or attr("ice-ufrag", session)
    pwd = attr("ice-pwd", first) or attr("ice-pwd", session)
    fingerprint = attr("fingerprint", first) or attr("fingerprint", session) or ""
    setup = attr("setup", first) or attr("setup", session) or "active"
    fp_hash, _, fp_value = fingerprint.partition(" ")
    candidates = []
    for line in first:
        if not line.startswith("a=candidate:"):
            continue
        m = _CANDIDATE.match(line[2:])
        if not m:
            continue
        foundation, component, protocol, priority, ip, port, typ, _rest = m.groups()
        if component != "1":  # rtcp-mux: one component
            continue
        candidates.append({
            "generation": "0", "component": component, "protocol": protocol.lower(), "port": port,
            "ip": ip, "foundation": foundation, "id": secrets.token_hex(4), "priority": priority,
            "type": typ, "network": "1",
        })  # fmt: skip
    out: dict = {
        "transport": {
            "ufrag": ufrag,
            "pwd": pwd,
            "fingerprints": [{"hash": fp_hash, "setup": setup, "fingerprint": fp_value}],
            "candidates": candidates,
        }
    }
    for section in media:
        kind = section[0][2:].split(" ", 1)[0]
        port = section[0].split(" ")[1]
        if kind not in ("audio", "video") or port == "0":
            continue
        out[kind] = {
            "payload-types": _payload_types(section, kind),
            "rtp-hdrexts": [
                {"id": int(m.group(1)), "uri": m.group(2)}
                for line in section
                if (m := re.match(r"a=extmap:(\d+)(?:/\S+)? (\S+)", line))
            ],
        }
    out.setdefault("video", {"payload-types": [], "rtp-hdrexts": []})
    return out
