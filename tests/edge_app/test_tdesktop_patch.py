"""edge_app.tdesktop_patch on a synthetic binary (Telegram Desktop's literals laid out
as its read-only data and DC arrays hold them) and on Debian's /usr/bin/telegram-desktop
(`make tdesktop` installs it): every address and both keys replaced in place, the ports
rewritten, and a refusal that writes nothing when any literal is missing."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from edge_app import tdesktop_patch as tp
from mtproto.crypto.rsa import RsaKey

REAL = Path("/usr/bin/telegram-desktop")


@pytest.fixture(scope="module")
def keys():
    return RsaKey.generate(), RsaKey.generate(), RsaKey.generate()  # "Telegram prod", "Telegram test", ours


def _fp(key: RsaKey) -> int:
    return key.fingerprint & (2**64 - 1)


def _synthetic(prod: RsaKey, test: RsaKey, drop: str | None = None) -> tuple[bytes, dict[str, int]]:
    """Strings region (every literal NUL-terminated, as the linker lays them out) and
    DC arrays of {int id; pad; char *ip; int port; pad} pointing at them by offset."""
    blob = bytearray(b"\x7fELF" + b"\0" * 60 + b"some code\0")
    where = {}
    for pem in (prod.public_pem().strip(), b"-----BEGIN RSA PUBLIC KEY-----\nnot a key\n-----END RSA PUBLIC KEY-----",
                test.public_pem().strip()):  # fmt: skip
        blob += pem + b"\0\0\0"
    for lit in tp.ADDRESS_LITERALS:
        if lit == drop:
            continue
        where[lit] = len(blob)
        blob += lit.encode() + b"\0"
    blob += b"\0" * 5
    for i, off in enumerate(where.values()):
        blob += struct.pack("<iIQiI", i % 5 + 1, 0, off, tp.TELEGRAM_PORT, 0)
    blob += b"tail\0"
    return bytes(blob), where


def test_every_literal_is_replaced_within_its_length(keys):
    prod, test, ours = keys
    data, where = _synthetic(prod, test)
    out, report = tp.patch(data, "10.141.0.1", 443, ours.public_pem(), telegram_keys=(_fp(prod), _fp(test)))

    assert len(out) == len(data) and out[:4] == b"\x7fELF"
    for lit, off in where.items():
        assert lit.encode() not in out
        want = b"::ffff:10.141.0.1" if ":" in lit else b"10.141.0.1"
        assert out[off : off + len(lit) + 1] == want + b"\0" * (len(lit) + 1 - len(want))
    assert prod.public_pem().strip() not in out and test.public_pem().strip() not in out
    assert out.count(ours.public_pem().strip() + b"\0") == 2
    assert b"not a key" in out  # another key in the binary stays
    assert report.ports_rewritten == 0 and out.count(struct.pack("<i", 443)) == len(where)
    assert len(report.addresses) == 17 and len(report.keys) == 2


def test_the_ports_follow_the_listener(keys):
    prod, test, ours = keys
    data, where = _synthetic(prod, test)
    out, report = tp.patch(data, "10.141.0.1", 20101, ours.public_pem(), telegram_keys=(_fp(prod), _fp(test)))
    assert report.ports_rewritten == len(where)
    for off in where.values():
        at = out.find(struct.pack("<Q", off))
        assert struct.unpack_from("<i", out, at + 8)[0] == 20101


@pytest.mark.parametrize(
    "drop", ["95.161.76.100", "149.154.175.117", "2001:0b28:f23f:f005:0000:0000:0000:000a"]
)
def test_a_missing_address_refuses(keys, drop):
    prod, test, ours = keys
    data, _ = _synthetic(prod, test, drop=drop)
    with pytest.raises(tp.PatchRefused, match=drop):
        tp.patch(data, "10.141.0.1", 443, ours.public_pem(), telegram_keys=(_fp(prod), _fp(test)))


def test_a_missing_key_refuses(keys):
    prod, test, ours = keys
    data, _ = _synthetic(prod, test)
    with pytest.raises(tp.PatchRefused, match="production RSA key"):
        tp.patch(data, "10.141.0.1", 443, ours.public_pem(), telegram_keys=(_fp(ours), _fp(test)))


def test_what_does_not_fit_refuses(keys):
    prod, test, ours = keys
    data, _ = _synthetic(prod, test)
    for host, why in (("192.168.100.200", "does not fit"), ("example.org", "not an IP"), ("fd00::1", "IPv4")):
        with pytest.raises(tp.PatchRefused, match=why):
            tp.patch(data, host, 443, ours.public_pem(), telegram_keys=(_fp(prod), _fp(test)))


def test_a_port_without_its_arrays_refuses(keys):
    prod, test, ours = keys
    data, where = _synthetic(prod, test)
    cut = data[: max(where.values()) + 60]  # the strings, not the DC arrays
    with pytest.raises(tp.PatchRefused, match="public port is 20101"):
        tp.patch(cut, "10.141.0.1", 20101, ours.public_pem(), telegram_keys=(_fp(prod), _fp(test)))
    out, _ = tp.patch(cut, "10.141.0.1", 443, ours.public_pem(), telegram_keys=(_fp(prod), _fp(test)))
    assert b"149.154" not in out


def test_the_command_refuses_and_writes_nothing(tmp_path):
    key_path = tmp_path / "server.key"
    key_path.write_bytes(RsaKey.generate().private_pem())
    fake = tmp_path / "telegram-desktop"
    fake.write_bytes(b"\x7fELF not telegram\0")
    out = tmp_path / "pointed"
    proc = _manage("clientconfig", "tdesktop", "--patch", str(fake), "-o", str(out), key=key_path)
    assert proc.returncode != 0 and "nothing written" in proc.stderr
    assert not out.exists() and not list(tmp_path.glob(".pointed*"))


def _manage(*args, key: Path, port: int = 443):
    env = {
        "PATH": "/usr/bin:/bin",
        "TELESRV_RSA_KEY": str(key),
        "TELESRV_MTPROTO_PUBLIC_HOST": "10.141.0.1",
        "TELESRV_MTPROTO_PUBLIC_PORT": str(port),
    }
    import os

    for k in ("TELESRV_DB_NAME", "TELESRV_REDIS_URL", "TELESRV_REDIS_PREFIX", "HOME"):
        if k in os.environ:
            env[k] = os.environ[k]
    root = Path(__file__).resolve().parents[2]
    return subprocess.run(
        [sys.executable, str(root / "manage.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=300,
    )


@pytest.mark.skipif(
    shutil.which("telegram-desktop") is None, reason="make tdesktop installs telegram-desktop"
)
def test_debian_telegram_desktop_is_pointed(tmp_path):
    key = RsaKey.generate()
    key_path = tmp_path / "server.key"
    key_path.write_bytes(key.private_pem())
    out = tmp_path / "telegram-desktop"
    proc = _manage("clientconfig", "tdesktop", "--patch", str(REAL), "-o", str(out), key=key_path, port=20101)
    assert proc.returncode == 0, proc.stderr
    assert "17 DC addresses -> 10.141.0.1" in proc.stdout and "17 DC entries" in proc.stdout
    data = out.read_bytes()
    assert len(data) == REAL.stat().st_size and out.stat().st_mode & 0o111
    for lit in tp.ADDRESS_LITERALS:
        assert b"\0" + lit.encode() + b"\0" not in data
    assert data.count(key.public_pem().strip() + b"\0") == 2
