"""Every registered RPC handler, called with a minimal well-formed request by a logged-in
user, answers a result or a specific Telegram error: never NOT_IMPLEMENTED, never an
unexpected exception (which the dispatcher would turn into 500 INTERNAL)."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async

from accounts_app.actions import do_create_user
from edge_app.registry import lookup, registered_names
from tests.channels_app.test_rpc import Ctx
from tl import functions, types
from tl.errors import RpcError
from tl.parser import api_schema

PRIMITIVES = {
    "int": 0,
    "long": 0,
    "double": 0.0,
    "string": "",
    "bytes": b"",
    "int128": 0,
    "int256": 0,
    "Bool": False,
}


def _class(name: str, holder):
    namespace, _, short = name.rpartition(".")
    owner = getattr(holder, namespace) if namespace else holder
    return getattr(owner, short[0].upper() + short[1:])


class Minimal:
    """The smallest value of each TL type: primitives zeroed, vectors empty, a boxed type
    by its constructor with the fewest required fields (an ``*Empty`` one where it has it);
    peers, channels and users are real ones (``known``), message ids name a real message,
    so a handler gets past its input checks into what it does."""

    def __init__(self, known: dict[str, object], msg_id: int) -> None:
        self.known = known
        self.msg_id = msg_id
        schema = api_schema(229)
        self.functions = {c.name: c for c in schema.functions}
        self.by_type: dict[str, list] = {}
        for c in schema.constructors:
            self.by_type.setdefault(c.result, []).append(c)

    def value(self, ref, depth: int = 0, name: str = ""):
        if ref.is_vector:
            if name in ("id", "ids", "msg_id") and ref.item.name == "int":
                return [self.msg_id]
            if ref.item.name in self.known:
                return [self.known[ref.item.name]]
            return []
        if ref.name in self.known:
            return self.known[ref.name]
        if ref.name == "int" and name in ("id", "msg_id", "max_id", "reply_to_msg_id", "top_msg_id"):
            return self.msg_id
        if ref.name == "int" and name == "limit":
            return 10
        if ref.name in PRIMITIVES:
            return PRIMITIVES[ref.name]
        if ref.name == "true":
            return False
        choices = self.by_type.get(ref.name) or []
        if not choices or depth > 6:
            return None
        best = min(
            choices, key=lambda c: (not c.name.endswith("Empty"), sum(not p.flag_field for p in c.params))
        )
        return self.build(best, types, depth + 1)

    def build(self, combinator, holder, depth: int = 0):
        kwargs = {}
        for p in combinator.params:
            if p.is_flags or p.flag_field is not None:
                continue
            kwargs[p.name if p.name not in ("self",) else "self_"] = self.value(p.type, depth, p.name)
        return _class(combinator.name, holder)(**kwargs)


class WalkerCtx(Ctx):
    client = None
    takeout_id = None  # as mtproto.dispatch.RequestContext outside invokeWithTakeout
    ip = ""  # as mtproto.dispatch.RequestContext when the address is unknown


@pytest.fixture
async def user_id(chan):
    return (await sync_to_async(do_create_user)("99966210001", "Walker")).id


async def test_no_handler_answers_not_implemented_or_crashes(user_id):
    ctx = WalkerCtx(user_id)
    created = await lookup("channels.createChannel").handler(
        ctx, functions.channels.CreateChannel(title="walk", about="", megagroup=True)
    )
    ch = next(c for c in created.chats if isinstance(c, types.Channel))
    sent = await lookup("messages.sendMessage").handler(
        ctx,
        functions.messages.SendMessage(
            peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash),
            message="hi",
            random_id=1,
        ),
    )
    msg_id = next(u.message.id for u in sent.updates if isinstance(u, types.UpdateNewChannelMessage))
    minimal = Minimal(
        {
            "InputPeer": types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash),
            "InputChannel": types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash),
            "InputUser": types.InputUserSelf(),
            "InputDialogPeer": types.InputDialogPeer(
                peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
            ),
        },
        msg_id,
    )
    not_implemented, crashed = [], []
    for name in sorted(registered_names()):
        if name not in minimal.functions:
            continue  # MTProto service functions and wrappers
        request = minimal.build(minimal.functions[name], functions)
        try:
            # A fresh context each time: auth.logOut and friends clear the session's user.
            await asyncio.wait_for(lookup(name).handler(WalkerCtx(user_id), request), 10)
        except TimeoutError:
            crashed.append(f"{name}: no answer in 10 s")
        except RpcError as e:
            if e.message == "NOT_IMPLEMENTED":
                not_implemented.append(name)
        except Exception as e:
            crashed.append(f"{name}: {type(e).__name__}: {e}")
    assert not not_implemented, not_implemented
    assert not crashed, "\n".join(crashed)
