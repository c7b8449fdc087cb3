"""Every constructor and function of every shipped layer, against a reference encoder
driven by the schema text alone (tests/tl/schema_values.py)."""

import struct

import pytest

from tl import functions, layers, types
from tl.runtime import DecodeError, EncodeError

from .schema_values import TreeGen, build_ours, ref_encode, schema_maps


def _cases(layer):
    by_name, _ = schema_maps(layer)
    return sorted(by_name)


# Layers clients in use speak (Pyrogram 2.0.106, Telethon 1.36/1.40, GramJS 2.26, PyroFork
# 2.3.68, Telethon 1.43/1.44, mtcute 0.30/0.31) get two random trees per combinator,
# every other shipped layer one.
WELL_USED = (158, 181, 198, 201, 207, 224, 225, 227, 228, 229)


@pytest.mark.parametrize("layer", layers.SUPPORTED)
def test_every_combinator_roundtrips_against_reference(layer):
    by_name, _ = schema_maps(layer)
    variants = 2 if layer in WELL_USED else 1
    failures = []
    no_tree = []
    checked = 0
    for seed, name in enumerate(_cases(layer)):
        comb = by_name[name]
        for variant in range(variants):
            gen = TreeGen(layer, seed=seed * 7 + variant)
            try:
                tree = gen.tree(comb)
                ref = ref_encode(tree, layer)
            except (LookupError, TypeError, struct.error) as e:
                # A field the old layer requires, of a type the primary layer has no
                # constructor (or field) for: our objects cannot carry it at all.
                no_tree.append((name, str(e)))
                continue
            ours = build_ours(tree, layer)
            got = layers.encode(ours, layer)
            if got != ref:
                failures.append((name, "encode differs"))
                continue
            back = layers.decode(ref, layer)
            if back != ours:
                failures.append((name, "decode differs"))
                continue
            checked += 1
    assert not failures, failures[:20]
    assert len(no_tree) <= 0.02 * variants * len(by_name), no_tree[:20]
    assert checked == variants * len(by_name) - len(no_tree)


def _sample_updates():
    msg = types.Message(
        id=10,
        peer_id=types.PeerChannel(channel_id=5),
        from_id=types.PeerUser(user_id=1),
        date=1700000000,
        message="hi",
        views=3,
        forwards=0,
    )
    user = types.User(id=1, first_name="A", bot_guard=True, linked_community_id=4)
    return types.Updates(
        updates=[types.UpdateNewChannelMessage(message=msg, pts=3, pts_count=1)],
        users=[user],
        chats=[types.Channel(id=5, title="c", photo=types.ChatPhotoEmpty(), date=1, linked_community_id=4)],
        date=1,
        seq=0,
    )


@pytest.mark.parametrize("layer", [224, 225, 227])
def test_changed_constructors_use_the_layer_ids(layer):
    data = layers.encode(_sample_updates(), layer)
    by_name, _ = schema_maps(layer)
    prim, _ = schema_maps(229)
    for name in ("updates", "updateNewChannelMessage", "message", "user", "channel"):
        assert struct.pack("<I", by_name[name].id) in data
        if by_name[name].id != prim[name].id:
            assert struct.pack("<I", prim[name].id) not in data
    assert by_name["user"].id != prim["user"].id
    back = layers.decode(data, layer)
    # Fields the old layer does not have are lost, the rest survives.
    assert back.users[0].first_name == "A" and back.users[0].linked_community_id is None
    assert back.updates[0].message == _sample_updates().updates[0].message


def test_primary_is_identity():
    u = _sample_updates()
    assert layers.encode(u, 229) == u.to_bytes()
    assert layers.decode(u.to_bytes(), 229) == u


def _new_in_229(prefix, result):
    prim, old = schema_maps(229)[0], schema_maps(224)[0]
    names = sorted(n for n, c in prim.items() if n.startswith(prefix) and c.result == result and n not in old)
    assert names, f"no {result} is new in 229"
    return build_ours(TreeGen(229, seed=1).tree(prim[names[0]]), 229)


def test_new_update_types_and_chats_are_dropped_for_old_layers():
    new_update = _new_in_229("update", "Update")
    community = _new_in_229("community", "Chat")
    kept = types.UpdateChannel(channel_id=5)
    upd = types.Updates(updates=[new_update, kept], users=[], chats=[community], date=1, seq=0)
    back = layers.decode(layers.encode(upd, 224), 224)
    assert back.updates == [kept] and back.chats == []
    assert layers.decode(layers.encode(upd, 229), 229) == upd
    with pytest.raises(EncodeError, match="no equivalent in layer 224"):
        layers.encode(new_update, 224)


def test_new_service_action_becomes_empty_action_for_old_layers():
    action = _new_in_229("messageAction", "MessageAction")
    msg = types.MessageService(id=1, peer_id=types.PeerChannel(channel_id=1), date=1, action=action)
    back = layers.decode(layers.encode(msg, 224), 224)
    assert back.action == types.MessageActionEmpty() and back.id == 1


def test_invoke_with_layer_switches_the_inner_layer():
    inner = functions.messages.SendMessage(peer=types.InputPeerSelf(), message="x", random_id=1)
    outer_224 = struct.pack("<Ii", functions.InvokeWithLayer.CONSTRUCTOR_ID, 224) + layers.encode(inner, 224)
    assert layers.encode(inner, 224) != inner.to_bytes()
    # The outer layer does not matter: invokeWithLayer names the inner one.
    for outer in (224, 229):
        req = layers.decode(outer_224, outer)
        assert req.layer == 224 and req.query == inner


def test_unknown_layers_resolve_to_a_shipped_one():
    assert layers.resolve(226) == 225
    assert layers.resolve(300) == 229
    assert layers.resolve(100) == 150
    assert layers.decode(types.PeerUser(user_id=1).to_bytes(), 226) == types.PeerUser(user_id=1)


def test_encode_result_vectors_and_bool():
    assert layers.encode_result([1, 2], "Vector<long>", 224) == struct.pack("<Iiqq", 0x1CB5C415, 2, 1, 2)
    assert layers.encode_result(True, "Bool", 224) == struct.pack("<I", 0x997275B5)
    users = [types.User(id=1), types.User(id=2)]
    data = layers.encode_result(users, "Vector<User>", 224)
    assert data[:8] == struct.pack("<Ii", 0x1CB5C415, 2)


def test_decode_errors_are_decode_errors():
    with pytest.raises(DecodeError):
        layers.decode(layers.encode(_sample_updates(), 224)[:-3], 224)


def test_optional_field_without_equivalent_is_left_out():
    reply_to = _new_in_229("inputReplyTo", "InputReplyTo")
    draft = types.DraftMessage(message="draft", date=5, reply_to=reply_to, no_webpage=True)
    back = layers.decode(layers.encode(draft, 224), 224)
    assert back.reply_to is None and back.message == "draft" and back.no_webpage
    assert layers.decode(layers.encode(draft, 229), 229).reply_to == reply_to


def test_layers_md_lists_every_case_without_equivalent():
    from tl import layerdoc

    assert layerdoc.DOC.read_text(encoding="utf-8") == layerdoc.render(), "run make regen"
