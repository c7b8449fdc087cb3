"""``manage.py rsakey``: what an operator runs to create and publish the server key."""

import re
import stat
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from mtproto.crypto.rsa import RsaKey


@pytest.fixture
def key_file(tmp_path, settings):
    path = tmp_path / "state" / "server_rsa.pem"
    settings.MTPROTO_RSA_KEY_PATH = path
    return path


def run(*args) -> str:
    out = StringIO()
    call_command("rsakey", *args, stdout=out)
    return out.getvalue()


def test_generate_writes_a_private_key_only_the_owner_can_read(key_file):
    out = run("generate")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = RsaKey.load(key_file)
    assert f"{key.fingerprint & 2**64 - 1:016x}" in out
    assert list(key_file.parent.iterdir()) == [key_file]  # no temp file left behind


def test_generate_refuses_to_overwrite_without_force(key_file):
    run("generate")
    before = key_file.read_bytes()
    with pytest.raises(CommandError):
        run("generate")
    assert key_file.read_bytes() == before
    run("generate", "--force")
    assert key_file.read_bytes() != before


def test_ensure_creates_once_and_then_keeps_the_key(key_file):
    run("ensure")
    first = key_file.read_bytes()
    run("ensure")
    assert key_file.read_bytes() == first


def test_show_prints_pkcs1_pem_and_fingerprint(key_file):
    run("generate")
    key = RsaKey.load(key_file)
    out = run("show")
    assert "-----BEGIN RSA PUBLIC KEY-----" in out and "-----END RSA PUBLIC KEY-----" in out
    end = "-----END RSA PUBLIC KEY-----"
    pem = out[out.index("-----BEGIN") : out.index(end) + len(end)]
    assert pem.encode() == key.public_pem().rstrip(b"\n")
    assert f"signed: {key.fingerprint})" in out
    assert f"{key.fingerprint & 2**64 - 1:016x}" in out


def test_show_tdesktop_literal_decodes_to_the_pem(key_file):
    run("generate")
    key = RsaKey.load(key_file)
    out = run("show", "--tdesktop")
    match = re.search(r'kPublicRSAKeys\[\] = \{ "(.*?)" \};', out, re.S)
    assert match and "kTestPublicRSAKeys" in out
    # undo the C escapes: backslash-newline continues the literal, \n is a newline
    decoded = match.group(1).replace("\\\n", "").replace("\\n", "\n")
    assert decoded + "\n" == key.public_pem().decode()


def test_show_without_a_key_says_how_to_make_one(key_file):
    with pytest.raises(CommandError, match="rsakey generate"):
        run("show")


def test_a_broken_key_file_is_reported(key_file):
    key_file.parent.mkdir(parents=True)
    key_file.write_text("not a key")
    with pytest.raises(CommandError, match="not a usable RSA key"):
        run("show")
