"""Fixed vectors for the primitives under every encrypted byte the server handles."""

import collections
import hashlib
import logging
import struct
import time

import pytest
from telethon.crypto import AuthKey as TelethonAuthKey
from telethon.network.mtprotostate import MTProtoState

from mtproto import crypto
from mtproto.crypto import (
    AuthKeyMismatch,
    BadEncryptedLength,
    BadPlaintext,
    Direction,
    MsgKeyMismatch,
)
from mtproto.crypto.aes import _py_ige

AUTH_KEY = bytes(range(256))
MSG_KEY = bytes(range(100, 116))


class CountingRandom:
    """Deterministic 'randomness' so that ciphertexts are reproducible."""

    def __init__(self, seed: int = 1):
        self.counter = seed

    def __call__(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += hashlib.sha256(self.counter.to_bytes(8, "little")).digest()
            self.counter += 1
        return out[:n]


def test_ige_known_answer_from_the_ige_paper():
    # AES-128 vector of the IGE specification / OpenSSL's igetest: checks the chaining
    key, iv = bytes(range(16)), bytes(range(32))
    out = _py_ige(bytes(32), key, iv, True)
    assert out.hex() == "1a8519a6557be652e9da8e43da4ef4453cf456b4ca488aa383c79c98b34797cb"
    assert _py_ige(out, key, iv, False) == bytes(32)


def test_ige_256_known_answer():
    # produced by an independent pure-Python AES (pyaes, Pyrogram's fallback)
    key, iv, data = bytes(range(32)), bytes(range(32, 64)), bytes(range(48))
    expected = bytes.fromhex(
        "42e66e1a756cccf5b27acc47523ad074ee39bf54e3db37bbdf415df6b400fca977f708327c9e9341cc3dc8efd31e7646"
    )
    assert crypto.ige_encrypt(data, key, iv) == expected
    assert crypto.ige_decrypt(expected, key, iv) == data
    assert _py_ige(data, key, iv, True) == expected


@pytest.mark.parametrize("size", [16, 48, 1024, 4096 + 16])
def test_ige_cryptg_and_fallback_agree(size):
    rand = CountingRandom(size)
    data, key, iv = rand(size), rand(32), rand(32)
    enc = crypto.ige_encrypt(data, key, iv)
    assert enc == _py_ige(data, key, iv, True)
    assert _py_ige(enc, key, iv, False) == data


def test_ige_rejects_partial_blocks():
    with pytest.raises(BadEncryptedLength):
        crypto.ige_decrypt(b"x" * 17, bytes(32), bytes(32))


def test_ctr_keystream_continues_across_calls():
    key, iv = bytes(range(32)), bytes(range(16))
    whole = crypto.CtrCipher(key, iv).update(bytes(100))
    split = crypto.CtrCipher(key, iv)
    assert split.update(bytes(7)) + split.update(bytes(93)) == whole
    # NIST SP 800-38A F.5.5 (CTR-AES256.Encrypt), first block
    nist = crypto.CtrCipher(
        bytes.fromhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"),
        bytes.fromhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
    )
    assert nist.update(bytes.fromhex("6bc1bee22e409f96e93d7e117393172a")).hex() == (
        "601ec313775789a5b7a7f504bbf3d228"
    )


def test_kdf_v2_fixed_vectors():
    key, iv = crypto.aes_key_iv_v2(AUTH_KEY, MSG_KEY, Direction.CLIENT_TO_SERVER)
    assert key.hex() == "d9aae4a5c4ff018239c0733db44a8a51c5c188b8dfc0df350f270b9206b16208"
    assert iv.hex() == "2d702f30e5306a5c0cfbc8baa20ba3aebd7268f29a3244e70f55a704cd16d992"
    key, iv = crypto.aes_key_iv_v2(AUTH_KEY, MSG_KEY, Direction.SERVER_TO_CLIENT)
    assert key.hex() == "71dfdcf2114c69315a5ebfd836e88f55dd64937ef04206428fccd2d7ad58959a"
    assert iv.hex() == "dd9d9e6e16bf9f51252a8125b9ac54b3aec76024b4260d44a5de711087d15975"
    assert crypto.msg_key_v2(AUTH_KEY, bytes(64), 0).hex() == "abb29426fe057be28014f342ff20b9b0"
    assert crypto.msg_key_v2(AUTH_KEY, bytes(64), 8).hex() == "25ce17bd9592abbd303a89dcaaebd6f7"


def test_kdf_v2_matches_telethon_both_directions():
    assert MTProtoState._calc_key(AUTH_KEY, MSG_KEY, True) == crypto.aes_key_iv_v2(AUTH_KEY, MSG_KEY, 0)
    assert MTProtoState._calc_key(AUTH_KEY, MSG_KEY, False) == crypto.aes_key_iv_v2(AUTH_KEY, MSG_KEY, 8)


def test_kdf_v1_fixed_vector():
    key, iv = crypto.aes_key_iv_v1(AUTH_KEY, MSG_KEY, 0)
    assert key.hex() == "8511ee48b1376fce54b7d0f41b8ce94e79e1688336681a91caf42195cea6d05d"
    assert iv.hex() == "bfc89896b1000d81f5b44f4dfa9946fb4ef22628b39275b6b3235d58a843f55a"


def test_auth_key_id_is_lower_64_bits_of_sha1():
    assert crypto.auth_key_id_of(AUTH_KEY) == -3972359982579920590
    assert crypto.auth_key_id_of(AUTH_KEY) % 2**64 == TelethonAuthKey(AUTH_KEY).key_id


def _telethon_state():
    loggers = collections.defaultdict(lambda: logging.getLogger("telethon-test"))
    state = MTProtoState(TelethonAuthKey(AUTH_KEY), loggers=loggers)
    state.salt, state.id = 0x1122334455667788, 0x0102030405060708
    return state


def test_decrypts_what_telethon_encrypts():
    state = _telethon_state()
    body = b"\x01\x02\x03\x04" * 5
    inner = struct.pack("<qii", 7 << 32, 1, len(body)) + body
    wire = state.encrypt_message_data(inner)
    msg = crypto.decrypt_message(AUTH_KEY, wire, Direction.CLIENT_TO_SERVER)
    assert (msg.salt, msg.session_id, msg.msg_id, msg.seq_no, msg.body) == (
        0x1122334455667788,
        0x0102030405060708,
        7 << 32,
        1,
        body,
    )
    large = hashlib.sha256(
        AUTH_KEY[88:120] + crypto.ige_decrypt(wire[24:], *crypto.aes_key_iv_v2(AUTH_KEY, wire[8:24], 0))
    ).digest()
    assert msg.quick_ack_token == int.from_bytes(large[:4], "little") | 0x80000000


def test_telethon_decrypts_what_we_encrypt():
    state = _telethon_state()
    pong = struct.pack("<Iqq", 0x347773C5, 11, 22)  # pong msg_id:long ping_id:long
    msg_id = (int(time.time()) << 32) | 1
    plain = crypto.pack_plaintext(state.salt, state.id, msg_id, 2, pong)
    wire = crypto.encrypt_message(AUTH_KEY, plain, Direction.SERVER_TO_CLIENT, rand=CountingRandom())
    # Telethon runs its own msg_key, session id and length checks here
    message = state.decrypt_message_data(wire)
    assert message.msg_id == msg_id
    assert (message.obj.msg_id, message.obj.ping_id) == (11, 22)


def test_encryption_is_reproducible_with_fixed_randomness():
    plain = crypto.pack_plaintext(1, 2, 3 << 32, 0, b"ping")
    a = crypto.encrypt_message(AUTH_KEY, plain, rand=CountingRandom(5))
    b = crypto.encrypt_message(AUTH_KEY, plain, rand=CountingRandom(5))
    assert a == b
    assert a[:8] == struct.pack("<q", crypto.auth_key_id_of(AUTH_KEY))


def test_message_roundtrip_with_extra_padding():
    plain = crypto.pack_plaintext(1, 2, 3 << 32, 5, b"\0" * 100)
    wire = crypto.encrypt_message(AUTH_KEY, plain, Direction.CLIENT_TO_SERVER, extra_padding_blocks=10)
    assert len(wire) - 24 - len(plain) >= 12 + 160
    assert crypto.decrypt_message(AUTH_KEY, wire, Direction.CLIENT_TO_SERVER).body == b"\0" * 100


def test_wrong_direction_fails_msg_key_check():
    plain = crypto.pack_plaintext(1, 2, 3 << 32, 0, b"ping")
    wire = crypto.encrypt_message(AUTH_KEY, plain, Direction.SERVER_TO_CLIENT)
    with pytest.raises(MsgKeyMismatch):
        crypto.decrypt_message(AUTH_KEY, wire, Direction.CLIENT_TO_SERVER)


def test_tampered_ciphertext_and_msg_key_are_refused():
    plain = crypto.pack_plaintext(1, 2, 3 << 32, 0, b"ping")
    wire = bytearray(crypto.encrypt_message(AUTH_KEY, plain, Direction.CLIENT_TO_SERVER))
    flipped = bytes(wire[:-1]) + bytes([wire[-1] ^ 1])
    with pytest.raises(MsgKeyMismatch):
        crypto.decrypt_message(AUTH_KEY, flipped, Direction.CLIENT_TO_SERVER)
    wire[10] ^= 0x40
    with pytest.raises(MsgKeyMismatch):
        crypto.decrypt_message(AUTH_KEY, bytes(wire), Direction.CLIENT_TO_SERVER)


def test_other_auth_key_id_is_refused():
    plain = crypto.pack_plaintext(1, 2, 3 << 32, 0, b"ping")
    other = bytes(reversed(AUTH_KEY))
    wire = crypto.encrypt_message(other, plain, Direction.CLIENT_TO_SERVER)
    with pytest.raises(AuthKeyMismatch):
        crypto.decrypt_message(AUTH_KEY, wire, Direction.CLIENT_TO_SERVER)


@pytest.mark.parametrize("size", [0, 23, 24 + 16, 24 + 48 + 3])
def test_truncated_messages_are_refused(size):
    with pytest.raises(BadEncryptedLength):
        crypto.decrypt_message(AUTH_KEY, b"\0" * size)


def test_lying_inner_length_is_refused():
    # a validly encrypted message whose header claims more body than there is
    padded = struct.pack("<qqqii", 1, 2, 3 << 32, 0, 400) + b"\0" * 32
    msg_key = crypto.msg_key_v2(AUTH_KEY, padded, 0)
    key, iv = crypto.aes_key_iv_v2(AUTH_KEY, msg_key, 0)
    wire = struct.pack("<q", crypto.auth_key_id_of(AUTH_KEY)) + msg_key + crypto.ige_encrypt(padded, key, iv)
    with pytest.raises(BadPlaintext):
        crypto.decrypt_message(AUTH_KEY, wire, Direction.CLIENT_TO_SERVER)


def test_padding_is_12_to_1024_and_aligned():
    for n in range(32, 96):
        pad = crypto.padding_length(n)
        assert 12 <= pad < 28 and (n + pad) % 16 == 0
    with pytest.raises(ValueError):
        crypto.padding_length(32, extra_blocks=64)


def test_without_cryptg_the_fallback_gives_the_same_bytes(monkeypatch):
    from mtproto.crypto import aes

    key, iv, data = bytes(range(32)), bytes(range(32, 64)), bytes(range(48))
    with_cryptg = crypto.ige_encrypt(data, key, iv)
    monkeypatch.setattr(aes, "_cryptg", None)
    assert not crypto.using_cryptg()
    assert crypto.ige_encrypt(data, key, iv) == with_cryptg
    assert crypto.ige_decrypt(with_cryptg, key, iv) == data
