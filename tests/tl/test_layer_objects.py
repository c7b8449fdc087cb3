"""Representative objects of a chat server (user, channel, message with entities and
forward/reply headers, messageService, dialog, updates with messages) through the
layers widely used clients speak, and the rule for layers without a schema."""

import logging
import struct

import pytest

from tl import layers, types

from .schema_values import schema_maps, zero

LAYERS = (158, 181, 198, 201, 207, 224, 227, 229)


def _user():
    return types.User(
        id=100,
        access_hash=7_000_001,
        first_name="Ada",
        last_name="Lovelace",
        username="ada",
        phone="999661234",
        photo=types.UserProfilePhoto(photo_id=9_001, dc_id=2),
        status=types.UserStatusOffline(was_online=1_700_000_000),
        contact=True,
        bot_guard=True,  # 229-only
    )


def _channel():
    return types.Channel(
        id=1_000_000_123,
        access_hash=-8_111_222_333,
        title="Python developers",
        username="pydev",
        photo=types.ChatPhoto(photo_id=5_555, dc_id=2),
        date=1_700_000_000,
        megagroup=True,
        creator=True,
        participants_count=3,
        admin_rights=types.ChatAdminRights(change_info=True, post_messages=True, delete_messages=True),
        default_banned_rights=types.ChatBannedRights(until_date=0, send_polls=True),
        linked_community_id=4,  # 229-only
    )


def _message():
    text = "hello **bold** https://example.org"
    return types.Message(
        id=10,
        out=True,
        peer_id=types.PeerChannel(channel_id=1_000_000_123),
        from_id=types.PeerUser(user_id=100),
        date=1_700_000_100,
        message=text,
        entities=[
            types.MessageEntityBold(offset=6, length=8),
            types.MessageEntityUrl(offset=text.index("https"), length=19),
        ],
        fwd_from=types.MessageFwdHeader(from_id=types.PeerUser(user_id=101), date=1_699_000_000),
        reply_to=types.MessageReplyHeader(reply_to_msg_id=9),
        views=3,
        forwards=0,
        edit_date=1_700_000_200,
    )


def _service():
    return types.MessageService(
        id=1,
        peer_id=types.PeerChannel(channel_id=1_000_000_123),
        from_id=types.PeerUser(user_id=100),
        date=1_700_000_000,
        action=types.MessageActionChannelCreate(title="Python developers"),
    )


def _dialog():
    return types.Dialog(
        peer=types.PeerChannel(channel_id=1_000_000_123),
        top_message=10,
        read_inbox_max_id=9,
        read_outbox_max_id=10,
        unread_count=1,
        unread_mentions_count=0,
        unread_reactions_count=0,
        unread_poll_votes_count=0,
        notify_settings=types.PeerNotifySettings(),
        pts=12,
        pinned=True,
    )


def _updates():
    msgs = []
    for i in range(20):
        m = _message()
        m.id = 100 + i
        msgs.append(types.UpdateNewChannelMessage(message=m, pts=20 + i, pts_count=1))
    msgs.append(types.UpdateNewChannelMessage(message=_service(), pts=40, pts_count=1))
    return types.Updates(updates=msgs, users=[_user()], chats=[_channel()], date=1_700_000_300, seq=0)


def _without(obj, names):
    # What an older layer cannot carry comes back as None/False (zero if required).
    prim, _ = schema_maps(229)
    params = {p.name: p for p in prim[obj.TL_NAME].params}
    for n in names:
        p = params[n]
        setattr(obj, n, False if p.is_true_flag else None if p.flag_field else zero(p.type))
    return obj


def _lost(layer, name):
    """Primary fields of ``name`` the layer lacks (or has with another type)."""
    prim, _ = schema_maps(229)
    old, _ = schema_maps(layer)
    theirs = {p.name: str(p.type) for p in old[name].params}
    return [
        p.name
        for p in prim[name].params
        if not p.is_flags and theirs.get(p.name) not in (str(p.type), *(("Bool",) if p.is_true_flag else ()))
    ]


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("make", [_user, _channel, _message, _service, _dialog])
def test_objects_roundtrip_with_the_layers_own_ids(layer, make):
    obj = make()
    data = layers.encode(obj, layer)
    old, _ = schema_maps(layer)
    assert data[:4] == struct.pack("<I", old[obj.TL_NAME].id)
    back = layers.decode(data, layer)
    assert back == _without(make(), _lost(layer, obj.TL_NAME))


@pytest.mark.parametrize("layer", LAYERS)
def test_updates_with_messages_roundtrip(layer):
    upd = _updates()
    back = layers.decode(layers.encode(upd, layer), layer)
    assert len(back.updates) == 21 and back.updates[-1].message.action == _service().action
    m = back.updates[0].message
    assert (m.message, m.entities, m.fwd_from.from_id, m.reply_to.reply_to_msg_id, m.views) == (
        _message().message,
        _message().entities,
        types.PeerUser(user_id=101),
        9,
        3,
    )
    assert back.users[0].first_name == "Ada" and back.chats[0].title == "Python developers"
    assert back.chats[0].megagroup and back.chats[0].admin_rights.delete_messages


def test_layer_198_is_what_gramjs_2_26_reads():
    # GramJS 2.26.22 (layer 198) failed on each of these with the old fallback to 224.
    for make, cid in (
        (_user, 0x4B46C37E),
        (_channel, 0xE00998B7),
        (_message, 0x96FDBBE9),
        (_service, 0xD3D28540),
        (_dialog, 0xD58A08C6),
    ):
        assert layers.encode(make(), 198)[:4] == struct.pack("<I", cid), make.__name__


def test_old_reply_to_msg_id_is_read_as_input_reply_to():
    from tl import functions

    old, _ = schema_maps(158)
    send = old["messages.sendMessage"]
    body = bytearray(struct.pack("<II", send.id, 1))  # flags: reply_to_msg_id
    body += types.InputPeerSelf().to_bytes() + struct.pack("<i", 42)
    body += b"\x02hi\x00" + struct.pack("<q", 7)
    req = layers.decode(bytes(body), 158)
    assert isinstance(req, functions.messages.SendMessage)
    assert req.reply_to == types.InputReplyToMessage(reply_to_msg_id=42) and req.message == "hi"


def test_layer_without_schema_gets_the_newest_older_one_logged_once(caplog):
    seen = []
    layers.on_fallback.append(lambda announced, served: seen.append((announced, served)))
    try:
        with caplog.at_level(logging.INFO, logger="tl.layers"):
            assert layers.resolve(200) == 199
            assert layers.resolve(200) == 199
            assert layers.resolve(226) == 225
            assert layers.resolve(300) == 229
            assert layers.resolve(140) == 150  # nothing older: the oldest, with a warning
            assert layers.resolve(198) == 198
    finally:
        layers.on_fallback.pop()
    assert seen == [(200, 199), (200, 199), (226, 225), (300, 229), (140, 150)]
    assert layers.FALLBACKS[(200, 199)] >= 2
    logged = [r for r in caplog.records if "has no schema" in r.getMessage()]
    assert sum("client layer 200 " in r.getMessage() for r in logged) <= 1
    assert any(r.levelno == logging.WARNING and "client layer 140 " in r.getMessage() for r in logged)
    # A client of 200 is spoken to in 199's ids.
    assert layers.encode(_user(), 200) == layers.encode(_user(), 199)


def test_answers_take_the_form_the_layers_function_returns():
    from tl import functions

    upd = types.Updates(updates=[], users=[], chats=[], date=1, seq=0)
    invite = functions.channels.InviteToChannel(channel=types.InputChannelEmpty(), users=[])
    invited = types.messages.InvitedUsers(updates=upd, missing_invitees=[])
    assert layers.result_for_layer(invited, invite, 158) is upd
    assert layers.result_for_layer(invited, invite, 198) is invited
    assert layers.result_type(invite, 158) == "Updates"

    get_filters = functions.messages.GetDialogFilters()
    filters = types.messages.DialogFilters(filters=[types.DialogFilterDefault()])
    assert layers.result_for_layer(filters, get_filters, 174) == [types.DialogFilterDefault()]
    assert layers.result_type(get_filters, 174) == "Vector<DialogFilter>"
    data = layers.encode_result([types.DialogFilterDefault()], "Vector<DialogFilter>", 174)
    assert data == struct.pack("<IiI", 0x1CB5C415, 1, types.DialogFilterDefault.CONSTRUCTOR_ID)

    config = types.help.AppConfig(hash=1, config=types.JsonObject(value=[]))
    assert layers.result_for_layer(config, functions.help.GetAppConfig(hash=0), 150) == config.config
