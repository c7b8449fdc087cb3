"""Hand-checked wire bytes and round trips of the primary layer and MTProto."""

import gzip
import struct

import pytest

from tl import functions, layers, mt, types
from tl.runtime import DecodeError, EncodeError, Reader, Writer


def roundtrip(obj):
    data = obj.to_bytes()
    back = Reader(data).read_object()
    assert back == obj
    assert back.to_bytes() == data
    return data


def test_peer_channel_wire_format():
    data = types.PeerChannel(channel_id=5).to_bytes()
    assert data == struct.pack("<Iq", types.PeerChannel.CONSTRUCTOR_ID, 5)
    assert types.PeerChannel.CONSTRUCTOR_ID == 0xA2A5371E


def test_user_with_self_flag_roundtrips_and_sets_bit_10():
    u = types.User(id=7, self=True, first_name="Ann", access_hash=-3, usernames=[])
    data = roundtrip(u)
    flags, flags2 = struct.unpack_from("<II", data, 4)
    assert flags == (1 << 10) | 1 | 2  # self, access_hash, first_name
    assert flags2 == 1  # usernames present (even empty)
    assert Reader(data).read_object().self is True


def test_message_in_updates_roundtrip():
    msg = types.Message(
        id=10,
        peer_id=types.PeerChannel(channel_id=5),
        from_id=types.PeerUser(user_id=1),
        date=1700000000,
        message="привет",
        entities=[types.MessageEntityBold(offset=0, length=3)],
        out=True,
        views=4,
        forwards=1,
    )
    upd = types.Updates(
        updates=[types.UpdateNewChannelMessage(message=msg, pts=3, pts_count=1)],
        users=[types.User(id=1, first_name="A")],
        chats=[types.Channel(id=5, title="c", photo=types.ChatPhotoEmpty(), date=1, megagroup=True)],
        date=1700000001,
        seq=0,
    )
    roundtrip(upd)


def test_functions_and_generic_query():
    req = functions.messages.SendMessage(
        peer=types.InputPeerChannel(channel_id=5, access_hash=9), message="hi", random_id=7
    )
    assert req.RESULT_TYPE == "Updates"
    roundtrip(req)
    wrapped = functions.InvokeWithLayer(layer=229, query=functions.help.GetConfig())
    assert roundtrip(wrapped)[:4] == struct.pack("<I", 0xDA9B0D0D)


def test_bool_and_vectors_of_primitives():
    roundtrip(types.ChatBannedRights(until_date=0, send_messages=True))
    roundtrip(functions.messages.GetMessagesViews(peer=types.InputPeerSelf(), id=[1, 2, 3], increment=True))
    roundtrip(functions.channels.ToggleSignatures(channel=types.InputChannelEmpty(), signatures_enabled=True))


def test_long_string_uses_four_byte_length():
    text = "x" * 300
    data = roundtrip(types.PeerChannel(channel_id=1)) and types.Error(code=1, text=text).to_bytes()
    assert data[8] == 254 and int.from_bytes(data[9:12], "little") == 300
    assert len(data) % 4 == 0


def test_mtproto_key_exchange_objects():
    nonce = bytes(range(16))
    roundtrip(mt.ReqPqMulti(nonce=nonce))
    res = mt.ResPQ(nonce=nonce, server_nonce=bytes(16), pq=b"\x17\xed", server_public_key_fingerprints=[-5])
    roundtrip(res)
    roundtrip(mt.MsgsAck(msg_ids=[1, 2]))
    roundtrip(
        mt.FutureSalts(req_msg_id=1, now=2, salts=[mt.FutureSalt(valid_since=1, valid_until=2, salt=3)])
    )


def test_container_message_bodies_stay_raw():
    ping = mt.Ping(ping_id=42).to_bytes()
    cont = mt.MsgContainer(messages=[mt.Message(msg_id=4, seqno=1, body=ping)])
    back = Reader(cont.to_bytes()).read_object()
    assert isinstance(back, mt.MsgContainer)
    assert back.messages[0].body == ping
    assert Reader(back.messages[0].body).read_object() == mt.Ping(ping_id=42)


def test_rpc_result_accepts_preencoded_bytes():
    inner = types.PeerUser(user_id=3)
    a = mt.RpcResult(req_msg_id=9, result=inner).to_bytes()
    b = mt.RpcResult(req_msg_id=9, result=inner.to_bytes()).to_bytes()
    assert a == b
    assert Reader(a).read_object().result == inner


def test_gzip_packed_is_inflated_transparently():
    obj = types.Error(code=3, text="y" * 1000)
    packed = mt.GzipPacked.pack(obj).to_bytes()
    assert len(packed) < 200
    assert Reader(packed).read_object() == obj


def test_gzip_bomb_is_refused():
    bomb = Writer().write_uint(0x3072CFA1).write_bytes(gzip.compress(b"\0" * (17 * 1024 * 1024)))
    with pytest.raises(DecodeError, match="inflates beyond"):
        Reader(bytes(bomb)).read_object()


@pytest.mark.parametrize("cut", [1, 4, 9, 13, 20])
def test_truncated_input_raises_decode_error(cut):
    data = types.User(id=7, first_name="Ann", last_name="B" * 40).to_bytes()
    with pytest.raises(DecodeError):
        Reader(data[:-cut]).read_object()


def test_huge_vector_count_is_refused_without_allocating():
    data = struct.pack("<IIi", mt.MsgsAck.CONSTRUCTOR_ID, 0x1CB5C415, 0x7FFFFFFF)
    with pytest.raises(DecodeError, match="vector length"):
        Reader(data).read_object()


def test_bytes_length_beyond_buffer_is_refused():
    data = struct.pack("<Ii", types.Error.CONSTRUCTOR_ID, 1) + b"\xfe\xff\xff\x00abc"
    with pytest.raises(DecodeError, match="exceeds"):
        Reader(data).read_object()


def test_unknown_constructor_is_decode_error():
    with pytest.raises(DecodeError, match="unknown constructor 0x12345678"):
        Reader(struct.pack("<I", 0x12345678)).read_object()
    assert issubclass(DecodeError, ValueError)


def test_repr_and_equality():
    a = types.PeerChannel(channel_id=5)
    assert repr(a) == "PeerChannel(channel_id=5)"
    assert a == types.PeerChannel(channel_id=5)
    assert a != types.PeerChannel(channel_id=6)
    assert a != types.PeerUser(user_id=5)
    assert types.messages.ChannelMessages.TL_NAME == "messages.channelMessages"


def test_missing_required_field_is_an_encode_error():
    bad = types.UpdateNewChannelMessage(message=None, pts=1, pts_count=1)
    with pytest.raises(EncodeError, match="updateNewChannelMessage"):
        bad.to_bytes()
    with pytest.raises(EncodeError):
        layers.encode(types.Updates(updates=[bad], users=[], chats=[], date=1, seq=0), 224)
    with pytest.raises(EncodeError, match="peerUser"):
        types.PeerUser(user_id=2**64).to_bytes()
