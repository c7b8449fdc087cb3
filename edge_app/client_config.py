"""What each client family changes to talk to this deployment instead of Telegram: the
DC address list and the server's RSA public key, in the form each client's source or
API takes them (``manage.py clientconfig <client>``; docs/clients.md explains).

Every client ships Telegram's keys and addresses; none is edited in place here. Source
builds (Telegram Desktop, Telegram Android, Web K, Web A) get the lines to put in their
tree; libraries (Telethon, Pyrogram/Kurigram, GramJS, mtcute) get the run-time calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from edge_app import dc, tdesktop_patch
from mtproto.crypto.rsa import RsaKey

CLIENTS = ("tdesktop", "android", "telethon", "pyrogram", "gramjs", "mtcute", "webk", "weba")


@dataclass(frozen=True, slots=True)
class Deployment:
    key: RsaKey
    dcs: list[dc.Endpoint]  # the main option of each DC id
    this_dc: int
    ws_url: str  # where web clients connect (behind a TLS proxy: wss://...)

    @property
    def pem(self) -> str:
        return self.key.public_pem().decode().strip()

    @property
    def fingerprint(self) -> int:
        return self.key.fingerprint & (2**64 - 1)

    @property
    def signed_fingerprint(self) -> int:
        fp = self.fingerprint
        return fp - 2**64 if fp >= 2**63 else fp

    @property
    def main(self) -> dc.Endpoint:
        return next(e for e in self.dcs if e.dc_id == self.this_dc)


def deployment(key: RsaKey, ws_url: str = "") -> Deployment:
    main = [e for e in dc.endpoints() if not e.media_only]
    by_id = {e.dc_id: e for e in main}
    first = main[0]
    return Deployment(
        key=key,
        dcs=[by_id[i] for i in sorted(by_id)],
        this_dc=dc.this_dc(),
        ws_url=ws_url or f"wss://{first.host}/apiws",
    )


def _c_string(pem: str) -> str:
    lines = pem.splitlines()
    return '"\\\n' + "\n".join(f"{line}\\n\\" for line in lines[:-1]) + "\n" + lines[-1] + '"'


def _ipv6_of(host: str) -> str:
    try:
        return tdesktop_patch.ipv6_stand_in(host)
    except ValueError:
        return host  # a name: the operator's to resolve


def _tdesktop(d: Deployment) -> str:
    dcs = ",\n".join(f'\t{{ {e.dc_id}, "{e.host}", {e.port} }}' for e in d.dcs)
    dcs6 = ",\n".join(f'\t{{ {e.dc_id}, "{_ipv6_of(e.host)}", {e.port} }}' for e in d.dcs)
    return f"""// Telegram Desktop: Telegram/SourceFiles/mtproto/mtproto_dc_options.cpp
// (replace Telegram's built-in DCs and keys; build with your own api_id/api_hash:
//  -D TDESKTOP_API_ID=... -D TDESKTOP_API_HASH=...). Production mode, not the test DC.
const BuiltInDc kBuiltInDcs[] = {{
{dcs}
}};

const BuiltInDc kBuiltInDcsIPv6[] = {{
{dcs6}
}};

const char *kPublicRSAKeys[] = {{ {_c_string(d.pem)} }};
// fingerprint {d.fingerprint:016x}
"""


def _android(d: Deployment) -> str:
    adds = "\n".join(
        f'    addAddressAndPort(datacenter /* id {e.dc_id} */, "{e.host}", {e.port}, 0, "");' for e in d.dcs
    )
    return f"""// Telegram Android: TMessagesProj/jni/tgnet/ConnectionsManager.cpp, initDatacenters():
// one datacenter object per id, each with this address (production list, not testBackend)
{adds}

// TMessagesProj/jni/tgnet/Handshake.cpp: the server keys and their fingerprints
serverPublicKeys.push_back({_c_string(d.pem)});
serverPublicKeysFingerprints.push_back(0x{d.fingerprint:016x}ULL);
"""


def _telethon(d: Deployment) -> str:
    m = d.main
    return f'''# Telethon (1.x, layers up to 229): at run time, before connect()
from telethon import TelegramClient
from telethon.crypto import rsa
from telethon.sessions import StringSession

PEM = """{d.pem}"""
rsa.add_key(PEM, old=False)  # fingerprint {d.fingerprint:016x}
session = StringSession()
session.set_dc({m.dc_id}, "{m.host}", {m.port})
client = TelegramClient(session, API_ID, API_HASH)
'''


def _pyrogram(d: Deployment) -> str:
    m = d.main
    return f"""# Kurigram 2.2 (Pyrogram family): at run time, before start()
from pyrogram import Client
from pyrogram.connection import Connection
from pyrogram.crypto import rsa

rsa.server_public_keys[{d.signed_fingerprint}] = rsa.PublicKey(int("{d.key.n:x}", 16), {d.key.e})


class Telesrv(Connection):
    # every DC of the deployment is one address
    def __init__(self, **kw):
        kw["server_address"], kw["port"] = "{m.host}", {m.port}
        super().__init__(**kw)


app = Client("telesrv", api_id=API_ID, api_hash=API_HASH, in_memory=True, connection_factory=Telesrv)
# Pyrogram 2.0 (no connection_factory): patch pyrogram.session.internals.DataCenter's
# address table instead; it dials port 443.
"""


def _gramjs(d: Deployment) -> str:
    m = d.main
    return f"""// GramJS (npm "telegram", layer 198): at run time
const RSA = require('telegram/crypto/RSA')
const bigInt = require('big-integer')
RSA._serverKeys.set('{d.signed_fingerprint}', {{ n: bigInt('{d.key.n:x}', 16), e: {d.key.e} }})
// connect() dials port 80/443 whatever the session says: pin host and port in a
// connection subclass
const {{ ConnectionTCPFull }} = require('telegram/network')
class Telesrv extends ConnectionTCPFull {{
  constructor(params) {{ super({{ ...params, ip: '{m.host}', port: {m.port} }}) }}
}}
const client = new TelegramClient(session, API_ID, API_HASH, {{ connection: Telesrv }})
client.session.setDC({m.dc_id}, '{m.host}', 443)
"""


def _mtcute(d: Deployment) -> str:
    m = d.main
    return f"""// mtcute (@mtcute/node, layer 227): public options
import {{ TelegramClient }} from '@mtcute/node'
import {{ addPublicKey, NodeCryptoProvider }} from '@mtcute/node/utils.js'

const PEM = `{d.pem}`
addPublicKey(new NodeCryptoProvider(), PEM)  // fingerprint {d.fingerprint:016x}
const dc = {{ id: {m.dc_id}, ipAddress: '{m.host}', port: {m.port} }}
const tg = new TelegramClient({{ apiId: API_ID, apiHash: API_HASH, defaultDcs: {{ main: dc, media: dc }} }})
"""


def _webk(d: Deployment) -> str:
    return f"""// Telegram Web K (morethanwords/tweb), source build:
// src/lib/mtproto/rsaKeysManager.ts - the publicKeysHex list:
{{ modulus: '{d.key.n:x}', exponent: '{d.key.e:06x}' }}  // fingerprint {d.fingerprint:016x}
// src/lib/mtproto/dcConfigurator.ts - every DC's WebSocket URL:
//   {d.ws_url}   (the listener serves /apiws; TLS by a reverse proxy, docs/websocket.md)
// src/config/app.ts - your api_id / api_hash; keep test mode off.
"""


def _weba(d: Deployment) -> str:
    return f"""// Telegram Web A (Ajaxy/telegram-tt), source build (its GramJS copy in src/lib/gramjs):
// src/lib/gramjs/crypto/RSA.ts - _serverKeys:
//   ['{d.signed_fingerprint}', {{ n: BigInt('0x{d.key.n:x}'), e: {d.key.e} }}]
// src/lib/gramjs/network/connection/... - every DC's WebSocket URL: {d.ws_url}
// .env - TELEGRAM_API_ID / TELEGRAM_API_HASH of your deployment.
"""


_RENDERERS = {
    "tdesktop": _tdesktop,
    "android": _android,
    "telethon": _telethon,
    "pyrogram": _pyrogram,
    "gramjs": _gramjs,
    "mtcute": _mtcute,
    "webk": _webk,
    "weba": _weba,
}


def render(client: str, d: Deployment) -> str:
    return _RENDERERS[client](d)
