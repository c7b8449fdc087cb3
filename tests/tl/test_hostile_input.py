"""Whatever a client sends, decoding either succeeds or raises DecodeError."""

import random
import struct
import zlib

import pytest

from tl import layers, mt, types
from tl.runtime import MAX_GZIP_SIZE, DecodeError, Reader

from .schema_values import TreeGen, build_ours, schema_maps

SAMPLES = ["updates", "channelFull", "messages.sendMessage", "user", "config", "messages.channelMessages"]


@pytest.mark.parametrize("layer", [224, 229])
def test_mutated_input_only_raises_decode_error(layer):
    rng = random.Random(layer)
    by_name, _ = schema_maps(layer)
    outcomes = {"ok": 0, "error": 0}
    for i, name in enumerate(SAMPLES * 5):
        data = bytearray(layers.encode(build_ours(TreeGen(layer, seed=i).tree(by_name[name]), layer), layer))
        for _ in range(60):
            mutated = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                pos = rng.randrange(len(mutated))
                mutated[pos] = rng.randrange(256)
            if rng.random() < 0.3:
                mutated = mutated[: rng.randrange(len(mutated))]
            try:
                layers.decode(bytes(mutated), layer)
                outcomes["ok"] += 1
            except DecodeError:
                outcomes["error"] += 1
    assert outcomes["error"] > 100 and outcomes["ok"] > 0


def test_deep_nesting_is_a_decode_error():
    # inputPeerUserFromMessage#a87b0a1c peer:InputPeer msg_id:int user_id:long, nested
    head = struct.pack("<I", types.InputPeerUserFromMessage.CONSTRUCTOR_ID)
    data = head * 100_000 + struct.pack("<I", types.InputPeerSelf.CONSTRUCTOR_ID) + bytes(12 * 100_000)
    with pytest.raises(DecodeError, match="nested too deeply"):
        Reader(data).read_object()


def test_nested_gzip_shares_one_inflation_budget():
    payload = types.Error(code=1, text="z" * 200).to_bytes()
    layer = payload
    # Each level is small, but together they must stay under the cap.
    inflated_total = 0
    for _ in range(12):
        layer = mt.GzipPacked.pack(layer + bytes(2 * 1024 * 1024)).to_bytes()
        inflated_total += 2 * 1024 * 1024
    assert inflated_total > MAX_GZIP_SIZE
    with pytest.raises(DecodeError, match="inflates beyond"):
        Reader(layer).read_object()


@pytest.mark.parametrize(
    "packed",
    [b"\x1f\x8b\x08\x00garb", zlib.compress(b"abcd" * 100)[:-6], b"not compressed at all"],
    ids=["garbage", "truncated", "plain"],
)
def test_corrupt_gzip_is_a_decode_error(packed):
    bad = mt.GzipPacked(packed_data=packed).to_bytes()
    with pytest.raises(DecodeError, match="gzip"):
        Reader(bad).read_object()


def test_container_with_bad_body_length_is_refused():
    data = struct.pack("<IiqiI", mt.MsgContainer.CONSTRUCTOR_ID, 1, 5, 1, 6) + bytes(8)
    with pytest.raises(DecodeError):
        Reader(data).read_object()
