"""A Bot API call's parameters, from the query string, a form, multipart or JSON, read
with the Bot API's checks and error texts."""

from __future__ import annotations

import orjson

from .errors import BadRequest


class Params:
    def __init__(self, values: dict) -> None:
        self.values = values

    def has(self, name: str) -> bool:
        v = self.values.get(name)
        return v is not None and v != ""

    def str(self, name: str, *, required: bool = False, default: str | None = None) -> str | None:
        v = self.values.get(name)
        if v is None or (v == "" and not required):
            if required:
                raise BadRequest(
                    f"{name} is empty" if name.endswith("text") else f'parameter "{name}" is required'
                )
            return default
        if isinstance(v, (dict, list)):
            raise BadRequest(f'field "{name}" must be of type String')
        return str(v)

    def int(self, name: str, *, required: bool = False, default: int | None = None) -> int | None:
        v = self.values.get(name)
        if v is None or v == "":
            if required:
                raise BadRequest(f'parameter "{name}" is required')
            return default
        if isinstance(v, bool):
            raise BadRequest(f'field "{name}" must be of type Integer')
        try:
            return int(v)
        except (TypeError, ValueError):
            raise BadRequest(f'field "{name}" must be of type Integer') from None

    def float(self, name: str, default: float = 0.0) -> float:
        v = self.values.get(name)
        if v is None or v == "":
            return default
        try:
            return float(v)
        except (TypeError, ValueError):
            raise BadRequest(f'field "{name}" must be of type Number') from None

    def bool(self, name: str, default: bool = False) -> bool:
        v = self.values.get(name)
        if v is None or v == "":
            return default
        if isinstance(v, bool):
            return v
        s = str(v).strip().lower()
        if s in ("true", "1"):
            return True
        if s in ("false", "0"):
            return False
        raise BadRequest(f'field "{name}" must be of type Boolean')

    def json(self, name: str):
        """An object parameter: JSON-encoded in a form or query, as is in a JSON body."""
        v = self.values.get(name)
        if v is None or v == "":
            return None
        if isinstance(v, (dict, list)):
            return v
        try:
            return orjson.loads(v)
        except orjson.JSONDecodeError:
            raise BadRequest(f"can't parse {name} JSON object") from None

    def chat_id(self, name: str = "chat_id") -> int:
        v = self.values.get(name)
        if v is None or v == "":
            raise BadRequest("chat_id is empty" if name == "chat_id" else f'parameter "{name}" is required')
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        s = str(v).strip()
        if s.lstrip("-").isdigit():
            return int(s)
        if s.startswith("@"):
            return s  # type: ignore[return-value]  # resolved by the caller
        raise BadRequest("chat not found")
