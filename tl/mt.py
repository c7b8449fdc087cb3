"""MTProto service schema: generated classes plus the hand-parsed constructors."""

from tl.gen.mt import *  # noqa: F403
from tl.gen.mt import __all__ as _gen_all
from tl.mt_special import GzipPacked, Message, MsgContainer, MsgCopy, RpcResult

__all__ = [*_gen_all, "GzipPacked", "Message", "MsgContainer", "MsgCopy", "RpcResult"]
