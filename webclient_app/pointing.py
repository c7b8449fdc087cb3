"""How a Web K build finds this deployment: its WebSocket URL and the server's RSA key.

Nothing of the deployment is compiled in. The build (webclient_app.builder) adds one
module, ``src/lib/mtproto/telesrvConfig.ts``, that reads ``telesrv.json`` beside the app
when first asked (a synchronous request: the MTProto worker needs the URL and keys in
synchronous code), and makes Web K's URL builder and key list use it. The admin process
serves that file from the settings, so one cached build serves any deployment, and a
changed address or key needs no rebuild.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

CONFIG_FILE = "telesrv.json"

HELPER_PATH = "src/lib/mtproto/telesrvConfig.ts"
HELPER = """// Added by telesrv's `manage.py webclient build` (not part of the upstream tree):
// the deployment this app talks to, from telesrv.json served beside it.
type TelesrvConfig = {ws_url: string, keys: {modulus: string, exponent: string}[]};
let config: TelesrvConfig | undefined;

export default function telesrvConfig(): TelesrvConfig {
  if(!config) {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', new URL('telesrv.json', self.location.href).toString(), false);
    xhr.send();
    config = JSON.parse(xhr.responseText) as TelesrvConfig;
  }
  return config;
}
"""
IMPORT = "import telesrvConfig from '@/lib/mtproto/telesrvConfig';\n"

# (file, pattern, replacement): each must match exactly once, or the tree is not one this
# builder knows (the error names the file).
PATCHES = (
    (
        "src/lib/mtproto/dcConfigurator.ts",
        re.compile(r"`wss://\$\{App\.wsSuffix[^`]*web\.telegram\.org/\$\{path\}`"),
        "telesrvConfig().ws_url",
    ),
    (
        "src/lib/mtproto/rsaKeysManager.ts",
        re.compile(r"(private publisKeysHex: RSAPublicKeyHex\[\] = )\[\{.*?\}\];", re.S),
        r"\1telesrvConfig().keys;",
    ),
    (
        "src/lib/mtproto/rsaKeysManager.ts",
        re.compile(r"(private testPublicKeysHex: RSAPublicKeyHex\[\] = )\[\{.*?\}\];", re.S),
        r"\1telesrvConfig().keys;",
    ),
)

# Web K's build switches: WebSocket only (no HTTP transport to Telegram's hosts).
BUILD_ENV = {
    "VITE_MTPROTO_HAS_HTTP": "",
    "VITE_MTPROTO_HTTP": "",
    "VITE_MTPROTO_HTTP_UPLOAD": "",
    "VITE_MTPROTO_AUTO": "",
    "VITE_MTPROTO_HAS_WS": "1",
    "VITE_MTPROTO_SW": "",
}


class UnknownTree(Exception):
    pass


def point(tree: Path) -> None:
    """Rewrite a copy of a Web K tree (never the operator's own) to read telesrv.json."""
    (tree / HELPER_PATH).write_text(HELPER)
    for name, pattern, replacement in PATCHES:
        path = tree / name
        text = path.read_text()
        text, n = pattern.subn(replacement, text)
        if n != 1:
            raise UnknownTree(f"{name}: expected one match of {pattern.pattern!r}, found {n}")
        if IMPORT not in text:
            text = IMPORT + text
        path.write_text(text)


def ws_url() -> str:
    """The public WebSocket URL (TELESRV_WEBCLIENT_WS_URL): by default the listener's
    public address, plain ws:// - behind a TLS proxy set the wss:// URL."""
    configured = getattr(settings, "WEBCLIENT_WS_URL", "")
    if configured:
        return configured
    return f"ws://{settings.MTPROTO_PUBLIC_HOST}:{settings.MTPROTO_PUBLIC_PORT}/apiws"


def deployment_config() -> dict:
    from edge_app.management.commands.rsakey import load_key

    key = load_key()
    modulus = f"{key.n:x}"
    modulus = "0" * (len(modulus) % 2) + modulus  # whole bytes: Web K reads it as bytes
    return {"ws_url": ws_url(), "keys": [{"modulus": modulus, "exponent": f"{key.e:06x}"}]}
