"""Telegram RPC errors, as exception classes built at import from ``tl/errors.csv``.

``raise ChannelPrivateError()`` answers ``400 CHANNEL_PRIVATE``; errors whose message
ends in ``_X`` take the number (``FloodWaitError(seconds=30)`` -> ``FLOOD_WAIT_30``).
Adding an error is one CSV line: columns code, message, class, description.
"""

from __future__ import annotations

import csv
from pathlib import Path

CSV_PATH = Path(__file__).resolve().parent / "errors.csv"


class RpcError(Exception):
    """An error answered to the client as ``rpc_error error_code error_message``."""

    code: int = 500
    message: str = "INTERNAL"
    description: str = ""

    def __init__(self, code: int | None = None, message: str | None = None) -> None:
        if code is not None:
            self.code = code
        if message is not None:
            self.message = message
        super().__init__(f"{self.code} {self.message}")

    def to_tl(self):
        """The ``rpc_error`` object for this error."""
        from tl.mt import RpcError as TlRpcError

        return TlRpcError(error_code=self.code, error_message=self.message)


class SeeOtherError(RpcError):
    code = 303


class BadRequestError(RpcError):
    code = 400


class UnauthorizedError(RpcError):
    code = 401


class ForbiddenError(RpcError):
    code = 403


class NotAcceptableError(RpcError):
    code = 406


class FloodError(RpcError):
    code = 420


class InternalServerError(RpcError):
    code = 500


_BASES = {
    303: SeeOtherError,
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    406: NotAcceptableError,
    420: FloodError,
    500: InternalServerError,
}


class _ParamError:
    """Mixin for ``..._X`` (or ``..._X_...``) errors: the number is part of the message."""

    prefix = ""
    suffix = ""
    param_name = "value"

    def __init__(self, *args: int, **kwargs: int) -> None:
        if (args and kwargs) or len(args) + len(kwargs) != 1:
            raise TypeError(f"{type(self).__name__} takes one integer ({self.param_name})")
        value = args[0] if args else kwargs.get(self.param_name, kwargs.get("value"))
        if value is None:
            raise TypeError(f"{type(self).__name__} takes {self.param_name}=")
        value = int(value)
        setattr(self, self.param_name, value)
        if self.param_name != "value":
            self.value = value
        RpcError.__init__(self, message=f"{self.prefix}{value}{self.suffix}")  # type: ignore[arg-type]


class _NamedError:
    """Mixin for errors with a fixed message. An optional ``detail`` is for the logs
    (``str(err)``), never sent to the client."""

    def __init__(self, detail: str | None = None) -> None:
        RpcError.__init__(self)  # type: ignore[arg-type]
        self.detail = detail
        if detail:
            self.args = (f"{self.code} {self.message}: {detail}",)  # type: ignore[attr-defined]


BY_MESSAGE: dict[str, type[RpcError]] = {}
_BY_PREFIX: dict[str, type[RpcError]] = {}


def _load() -> dict[str, type[RpcError]]:
    classes: dict[str, type[RpcError]] = {}
    with CSV_PATH.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            code, message, name = int(row["code"]), row["message"], row["class"]
            base = _BASES.get(code, RpcError)
            ns = {"code": code, "message": message, "description": row["description"], "__module__": __name__}
            if message.endswith("_X") or "_X_" in message:
                head, _, tail = message.partition("_X")
                ns["prefix"], ns["suffix"] = head + "_", tail
                ns["param_name"] = "seconds" if "WAIT" in message else "value"
                cls = type(name, (_ParamError, base), ns)
                _BY_PREFIX[head + "_"] = cls
            else:
                cls = type(name, (_NamedError, base), ns)
            cls.__doc__ = f"{code} {message}: {row['description']}"
            classes[name] = cls
            BY_MESSAGE[message] = cls
    return classes


_CLASSES = _load()
globals().update(_CLASSES)


def from_rpc(code: int, message: str) -> RpcError:
    """The named error for an ``rpc_error`` (an ad hoc ``RpcError`` if none matches)."""
    cls = BY_MESSAGE.get(message)
    if cls is not None:
        return cls()
    for prefix, cls in _BY_PREFIX.items():
        tail = message[len(prefix) :]
        if cls.suffix and tail.endswith(cls.suffix):
            tail = tail[: -len(cls.suffix)]
        if message.startswith(prefix) and tail.isdigit():
            return cls(int(tail))
    return RpcError(code, message)


__all__ = [
    "BY_MESSAGE",
    "BadRequestError",
    "FloodError",
    "ForbiddenError",
    "InternalServerError",
    "NotAcceptableError",
    "RpcError",
    "SeeOtherError",
    "UnauthorizedError",
    "from_rpc",
    *_CLASSES,
]
