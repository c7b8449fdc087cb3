"""MTProto sessions: msg_id/seqno/salt rules, service messages, acks and re-sends,
API wrappers and concurrent request execution. No I/O: connections plug in as links."""

from mtproto.session.clock import MsgIdClock, check_client_msg_id
from mtproto.session.codec import Codec, TLCodec
from mtproto.session.manager import SessionManager
from mtproto.session.salts import SaltSchedule
from mtproto.session.session import Link, OutMessage, Session

__all__ = [
    "Codec",
    "Link",
    "MsgIdClock",
    "OutMessage",
    "SaltSchedule",
    "Session",
    "SessionManager",
    "TLCodec",
    "check_client_msg_id",
]
