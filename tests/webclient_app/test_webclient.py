"""The web client's build pointing and serving, without building (the e2e test in
tests/e2e/test_webclient.py drives a real build)."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings

from mtproto.crypto import RsaKey
from webclient_app import builder, pointing

DC_CONFIGURATOR = """import App from '@/config/app';
export function constructTelegramWebSocketUrl(dcId: DcId, connectionType: ConnectionType, premium?: boolean) {
  const chosenServer = `wss://${App.wsSuffix.toLowerCase()}ws${dcId}${suffix}.web.telegram.org/${path}`;
  return chosenServer;
}
"""
RSA_KEYS = """export class RSAKeysManager {
  private testPublicKeysHex: RSAPublicKeyHex[] = [{
    modulus: 'c8c1',
    exponent: '010001',
  }];

  private publisKeysHex: RSAPublicKeyHex[] = [{
    // modulus: '00e8',
    modulus: 'e8bb',
    exponent: '010001',
  }];
}
"""


def _tree(root):
    mt = root / "tweb" / "src" / "lib" / "mtproto"
    mt.mkdir(parents=True)
    (mt / "dcConfigurator.ts").write_text(DC_CONFIGURATOR)
    (mt / "rsaKeysManager.ts").write_text(RSA_KEYS)
    (root / "tweb" / "package.json").write_text(json.dumps({"packageManager": "pnpm@10.1.2+sha512.x"}))
    return root / "tweb"


def test_pointing_replaces_telegrams_address_and_keys(tmp_path):
    tree = _tree(tmp_path)
    pointing.point(tree)
    dc = (tree / "src/lib/mtproto/dcConfigurator.ts").read_text()
    keys = (tree / "src/lib/mtproto/rsaKeysManager.ts").read_text()
    assert "web.telegram.org" not in dc and "const chosenServer = telesrvConfig().ws_url;" in dc
    assert "e8bb" not in keys and "c8c1" not in keys and keys.count("telesrvConfig().keys;") == 2
    assert "telesrv.json" in (tree / pointing.HELPER_PATH).read_text()
    assert builder._pnpm_version(tree) == "10.1.2"


def test_an_unknown_tree_is_refused(tmp_path):
    tree = _tree(tmp_path)
    (tree / "src/lib/mtproto/dcConfigurator.ts").write_text("export const url = 'wss://elsewhere';\n")
    with pytest.raises(pointing.UnknownTree, match=r"dcConfigurator\.ts"):
        pointing.point(tree)


def test_the_digest_follows_the_sources_not_node_modules(tmp_path):
    tree = _tree(tmp_path)
    first = builder.digest(tree)
    (tree / "node_modules").mkdir()
    (tree / "node_modules" / "x.js").write_text("1")
    assert builder.digest(tree) == first
    (tree / "src" / "new.ts").write_text("export {};\n")
    assert builder.digest(tree) != first


@pytest.fixture
def served(tmp_path, settings):
    """A fake finished build in a cache directory, and the key the app is told."""
    key_path = tmp_path / "key.pem"
    from edge_app.management.commands.rsakey import write_key

    key = RsaKey.generate()
    write_key(key_path, key)
    app = tmp_path / "cache" / "builds" / "abc" / "app"
    app.mkdir(parents=True)
    (app / "index.html").write_text("<!doctype html><title>Telegram Web</title>")
    (app / "index-DQWg4YMh.js").write_text("console.log(1)")
    (app / "mtcute-Xk12abcd.wasm").write_bytes(b"\0asm")
    (app / "site.webmanifest").write_text("{}")
    (app.parent / "source.tar.gz").write_bytes(b"\x1f\x8b")
    (tmp_path / "cache" / "current").write_text("abc\n")
    settings.WEBCLIENT_DIR = str(tmp_path / "cache")
    settings.MTPROTO_RSA_KEY_PATH = key_path
    settings.WEBCLIENT_WS_URL = "wss://chat.example.org/apiws"
    return key


def test_the_app_is_served_with_types_caching_and_its_source(client, served):
    index = client.get("/web/")
    assert index.status_code == 200 and index["Content-Type"].startswith("text/html")
    assert index["Cache-Control"] == "no-cache" and "/web/source.tar.gz" in index["Link"]
    js = client.get("/web/index-DQWg4YMh.js")
    assert js["Content-Type"] == "text/javascript" and "immutable" in js["Cache-Control"]
    assert client.get("/web/mtcute-Xk12abcd.wasm")["Content-Type"] == "application/wasm"
    assert client.get("/web/site.webmanifest")["Content-Type"] == "application/manifest+json"
    source = client.get("/web/source.tar.gz")
    assert source.status_code == 200 and b"".join(source.streaming_content) == b"\x1f\x8b"
    config = client.get("/web/telesrv.json").json()
    assert config["ws_url"] == "wss://chat.example.org/apiws"
    assert int(config["keys"][0]["modulus"], 16) == served.n and config["keys"][0]["exponent"] == "010001"
    assert client.get("/web/../../etc/passwd").status_code == 404
    assert client.get("/web/missing.js").status_code == 404


@override_settings(WEBCLIENT_DIR="/nonexistent/telesrv-webclient")
def test_before_a_build_the_page_says_how_to_make_one(client):
    answer = client.get("/web/")
    assert answer.status_code == 404 and b"manage.py webclient build" in answer.content
