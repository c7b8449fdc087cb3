"""Telegram's group-call join JSON <-> SDP, the SFU's terms.

A Telegram client never speaks SDP to its group-call server: it sends its ICE
credentials, its DTLS fingerprint (as DTLS server, "passive"), its audio SSRC and its
video SSRC groups (simulcast + FID), and expects the server's transport (ICE
credentials, fingerprint, candidates) and the payload types / header extensions to use,
as JSON in the shape of Jitsi's COLIBRI.

Roles decide the direction: the client is ICE-controlled and DTLS server, so the SFU
must nominate (ICE controlling) and open DTLS (client). Janus takes those roles when it
makes the offer itself, so the SFU offers, this module writes the answer the client
would have made (its ICE, fingerprint and SSRCs), and turns the SFU's offer into the
client's JSON.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field

# ntgcalls opens a receiving channel for an unknown SSRC only for payload type 111
# (GroupConnection::RtpPacketReceived), as Telegram's servers use: Opus is 111 on the
# client's side whatever the SFU offered (the SFU sends with the PT of the answer).
OPUS_PT = 111
OPUS_FMTP = {"minptime": "10", "useinbandfec": "1"}
AUDIO_LEVEL = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
VP8 = {"id": 100, "name": "VP8", "clockrate": 90000}
RTX = {"id": 101, "name": "rtx", "clockrate": 90000}
# One id space for the whole bundle: these stay clear of the SFU's audio ids (1, 2).
VIDEO_EXTS = [
    (4, "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"),
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


@dataclass
class Section:
    kind: str
    port: str
    mid: str
    lines: list[str]

    def extmaps(self) -> list[tuple[int, str]]:
        return [
            (int(m.group(1)), m.group(2))
            for line in self.lines
            if (m := re.match(r"a=extmap:(\d+)(?:/\S+)? (\S+)", line))
        ]


@dataclass
class ServerSdp:
    ufrag: str
    pwd: str
    hash: str
    fingerprint: str
    candidates: list[dict]
    sections: list[Section]

    @classmethod
    def parse(cls, sdp: str) -> ServerSdp:
        blocks: list[list[str]] = [[]]
        for line in sdp.replace("\r\n", "\n").split("\n"):
            if line.startswith("m="):
                blocks.append([])
            if line:
                blocks[-1].append(line)
        session, media = blocks[0], blocks[1:]

        def attr(name: str) -> str:
            for where in [*media[0], *session] if media else session:
                if where.startswith(f"a={name}:"):
                    return where.split(":", 1)[1].strip()
            return ""

        fp_hash, _, fp_value = attr("fingerprint").partition(" ")
        sections = []
        for block in media:
            kind, port = block[0][2:].split(" ")[:2]
            mid = next((b.split(":", 1)[1] for b in block if b.startswith("a=mid:")), str(len(sections)))
            sections.append(Section(kind, port, mid, block))
        candidates = []
        for line in [*(media[0] if media else []), *session]:
            m = re.match(r"a=candidate:(\S+) (\d+) (\S+) (\d+) (\S+) (\d+) typ (\S+)", line)
            if not m or m.group(2) != "1":  # rtcp-mux: component 1 only
                continue
            foundation, component, protocol, priority, ip, port, typ = m.groups()
            candidates.append({
                "generation": "0", "component": component, "protocol": protocol.lower(), "port": port,
                "ip": ip, "foundation": foundation, "id": secrets.token_hex(4), "priority": priority,
                "type": typ, "network": "1",
            })  # fmt: skip
        return cls(attr("ice-ufrag"), attr("ice-pwd"), fp_hash, fp_value, candidates, sections)


def answer_for(client: JoinParams, offer: ServerSdp) -> str:
    """The SDP answer the client described by ``client`` would give to the SFU's offer:
    its ICE credentials and fingerprint, its audio SSRC (Opus at 111), its video SSRCs."""
    cname = secrets.token_hex(8)
    accepted = [s.mid for s in offer.sections if s.kind in ("audio", "video") and s.port != "0"]
    lines = [
        "v=0",
        f"o=- {secrets.randbelow(2**62)} 2 IN IP4 127.0.0.1",
        "s=-",
        "t=0 0",
        f"a=group:BUNDLE {' '.join(accepted)}",
        "a=msid-semantic: WMS *",
    ]
    for s in offer.sections:
        if s.mid not in accepted:
            lines += [f"m={s.kind} 0 UDP/TLS/RTP/SAVPF 0", "c=IN IP4 0.0.0.0", f"a=mid:{s.mid}", "a=inactive"]
            continue
        if s.kind == "audio":
            pts = [str(OPUS_PT)]
        else:
            pts = [str(VP8["id"]), str(RTX["id"])]
        lines += [
            f"m={s.kind} 9 UDP/TLS/RTP/SAVPF {' '.join(pts)}",
            "c=IN IP4 0.0.0.0",
            "a=rtcp:9 IN IP4 0.0.0.0",
            f"a=ice-ufrag:{client.ufrag}",
            f"a=ice-pwd:{client.pwd}",
            f"a=fingerprint:{client.hash} {client.fingerprint}",
            f"a=setup:{client.setup}",
            f"a=mid:{s.mid}",
        ]
        lines += [f"a=extmap:{i} {uri}" for i, uri in s.extmaps()]
        lines += ["a=sendrecv", "a=rtcp-mux"]
        if s.kind == "audio":
            fmtp = ";".join(f"{k}={v}" for k, v in OPUS_FMTP.items())
            lines += [f"a=rtpmap:{OPUS_PT} opus/48000/2", f"a=fmtp:{OPUS_PT} {fmtp}"]
            lines += [f"a=ssrc:{client.audio_ssrc} cname:{cname}"]
        else:
            lines += [
                f"a=rtpmap:{VP8['id']} VP8/90000",
                f"a=rtcp-fb:{VP8['id']} nack",
                f"a=rtcp-fb:{VP8['id']} nack pli",
                f"a=rtcp-fb:{VP8['id']} ccm fir",
                f"a=rtpmap:{RTX['id']} rtx/90000",
                f"a=fmtp:{RTX['id']} apt={VP8['id']}",
            ]
            lines += [f"a=ssrc-group:{sem} {' '.join(map(str, src))}" for sem, src in client.video_groups]
            lines += [f"a=ssrc:{v} cname:{cname}" for v in client.video_ssrcs()]
    return "\r\n".join(lines) + "\r\n"


def telegram_json(offer: ServerSdp) -> dict:
    """The SFU's side as Telegram's media-server JSON (updateGroupCallConnection.params)."""
    out: dict = {
        "transport": {
            "ufrag": offer.ufrag,
            "pwd": offer.pwd,
            # The SFU opens DTLS: the client (passive) is told the SFU is "active".
            "fingerprints": [{"hash": offer.hash, "setup": "active", "fingerprint": offer.fingerprint}],
            "candidates": offer.candidates,
        }
    }
    for s in offer.sections:
        if s.port == "0" or s.kind not in ("audio", "video") or s.kind in out:
            continue
        if s.kind == "audio":
            out["audio"] = {
                "payload-types": [
                    {
                        "id": OPUS_PT,
                        "name": "opus",
                        "clockrate": 48000,
                        "channels": 2,
                        "parameters": OPUS_FMTP,
                    }
                ],
                "rtp-hdrexts": [{"id": i, "uri": uri} for i, uri in s.extmaps() if uri == AUDIO_LEVEL],
            }
        else:
            out["video"] = video_json(s.extmaps())
    # ntgcalls builds its outgoing video channel from these even when it sends no video
    # (an empty list aborts it): the SFU simply drops what it is not offered to carry.
    out.setdefault("video", video_json(VIDEO_EXTS))
    return out


def video_json(extmaps: list[tuple[int, str]]) -> dict:
    return {
        "payload-types": [
            {**VP8, "rtcp-fbs": [{"type": "goog-remb"}, {"type": "transport-cc"}, {"type": "ccm", "subtype": "fir"},
                                 {"type": "nack"}, {"type": "nack", "subtype": "pli"}]},
            {**RTX, "parameters": {"apt": str(VP8["id"])}},
        ],
        "rtp-hdrexts": [{"id": i, "uri": uri} for i, uri in extmaps],
    }  # fmt: skip
