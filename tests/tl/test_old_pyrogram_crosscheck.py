"""Older layers against independent implementations of them: Kurigram 2.1.38 (layer
198, the schema GramJS 2.26.21-22 ships too) and Pyrogram 2.0.106 (layer 158), each in
its own venv. What we encode for that layer (representative chat objects and random
trees) is read by their generated classes to the last byte, with the values we sent.
(Their write-back is not compared: Pyrogram reads an absent optional vector as [] and
then writes it without its flag.)"""

import json
import random
import subprocess

import pytest

from tests.support.client_venvs import client_python
from tl import layers

from .schema_values import TreeGen, build_ours, schema_maps
from .test_kurigram_crosscheck import drop_empty_optional_vectors
from .test_layer_objects import _channel, _dialog, _message, _service, _updates, _user
from .test_telethon_crosscheck import _retyped_required

CLIENTS = {198: "kurigram==2.1.38", 158: "Pyrogram==2.0.106"}
NAMED = [
    "message",
    "messageService",
    "channel",
    "channelFull",
    "user",
    "dialog",
    "updates",
    "messages.dialogs",
]

READ_BACK = r"""
import json, logging, sys
from io import BytesIO
logging.disable(logging.CRITICAL)
from pyrogram import raw
from pyrogram.raw.core import TLObject
def summary(o):
    if isinstance(o, raw.types.Updates):
        m = o.updates[0].message
        return [len(o.updates), m.message, m.fwd_from.from_id.user_id, m.reply_to.reply_to_msg_id,
                type(o.updates[-1].message.action).__name__, o.users[0].first_name, o.chats[0].title]
    if isinstance(o, raw.types.Message):
        return [o.id, o.message, [type(e).__name__ for e in o.entities], o.fwd_from.date, o.views]
    if isinstance(o, raw.types.User):
        return [o.id, o.access_hash, o.first_name, o.username, o.contact]
    if isinstance(o, raw.types.Channel):
        return [o.id, o.title, o.megagroup, o.admin_rights.delete_messages, o.participants_count]
    if isinstance(o, raw.types.MessageService):
        return [o.id, type(o.action).__name__, o.action.title]
    if isinstance(o, raw.types.Dialog):
        return [o.top_message, o.unread_count, o.pinned]
    return None

out = []
for h in json.load(sys.stdin):
    try:
        b = BytesIO(bytes.fromhex(h))
        obj = TLObject.read(b)
        try:
            fields = summary(obj)
        except (AttributeError, IndexError):  # a random tree, not one of the representative objects
            fields = None
        out.append([obj.QUALNAME, len(b.read()), fields])
    except Exception as e:
        out.append(["error", repr(e)[:300], None])
print(json.dumps({"layer": raw.all.layer, "objects": out}))
"""


def _read_back(layer, blobs):
    try:
        python = client_python(CLIENTS[layer])
    except (subprocess.SubprocessError, OSError) as e:  # pragma: no cover - no PyPI
        pytest.fail(f"cannot create the {CLIENTS[layer]} venv: {e}")
    out = subprocess.run(
        [str(python), "-c", READ_BACK],
        input=json.dumps([b.hex() for b in blobs]),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        cwd="/",
    )
    return json.loads(out.stdout)


@pytest.mark.parametrize("layer", list(CLIENTS))
def test_their_classes_read_and_rewrite_what_we_encode(layer):
    by_name, _ = schema_maps(layer)
    objects = [_user(), _channel(), _message(), _service(), _dialog(), _updates()]
    avoid = _retyped_required(layer) | {"messageMediaEmpty"}
    rng = random.Random(layer)
    names = [n for n in NAMED for _ in range(5)] + rng.sample(
        sorted(n for n in by_name if n not in avoid), 60
    )
    for i, name in enumerate(names):
        tree = TreeGen(layer, seed=500 + i, avoid=avoid).tree(by_name[name])
        objects.append(build_ours(drop_empty_optional_vectors(tree, by_name), layer))
    blobs = [layers.encode(o, layer) for o in objects]
    got = _read_back(layer, blobs)
    assert got["layer"] == layer
    bad = [
        (o.TL_NAME, kind, left)
        for o, (kind, left, _) in zip(objects, got["objects"], strict=True)
        if left != 0
    ]
    assert not bad, bad[:10]
    assert [k for k, _, _ in got["objects"][:6]] == [
        "types.User",
        "types.Channel",
        "types.Message",
        "types.MessageService",
        "types.Dialog",
        "types.Updates",
    ]
    assert [x for _, _, x in got["objects"][:6]] == [
        [100, 7_000_001, "Ada", "ada", True],
        [1_000_000_123, "Python developers", True, True, 3],
        [
            10,
            "hello **bold** https://example.org",
            ["MessageEntityBold", "MessageEntityUrl"],
            1_699_000_000,
            3,
        ],
        [1, "MessageActionChannelCreate", "Python developers"],
        [10, 1, True],
        [
            21,
            "hello **bold** https://example.org",
            101,
            9,
            "MessageActionChannelCreate",
            "Ada",
            "Python developers",
        ],
    ]
