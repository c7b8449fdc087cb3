"""Runs under any venv with Telethon (not the project's code): reads JSON on stdin,
``{"trees": [...], "decode": [hex, ...]}``, and prints ``{"layer": N, "encoded": [...],
"reencoded": [...]}``: each tree built with Telethon's classes and serialized, and each
input decoded with ``BinaryReader.tgread_object()`` and serialized again."""

import json
import sys

from telethon.extensions import BinaryReader
from telethon.tl import functions, types
from telethon.tl.alltlobjects import LAYER


def _class(name, is_function):
    ns, _, short = name.rpartition(".")
    root = functions if is_function else types
    if ns:
        root = getattr(root, ns)
    return getattr(root, short[:1].upper() + short[1:] + ("Request" if is_function else ""))


def build(v):
    if isinstance(v, list):
        return [build(x) for x in v]
    if isinstance(v, dict):
        if "$b" in v:
            return bytes.fromhex(v["$b"])
        if "$i" in v:
            return int.from_bytes(bytes.fromhex(v["$i"]), "little", signed=True)
        cls = _class(v["_"], v.get("$fn", False))
        kwargs = {}
        for k, x in v.items():
            if k in ("_", "$fn"):
                continue
            k = {"self": "is_self", "from": "from_"}.get(k, k)
            kwargs[k] = build(x)
        return cls(**kwargs)
    return v


def attempt(fn):
    try:
        return fn()
    except Exception as e:
        return "error: " + repr(e)[:300]


def main():
    req = json.load(sys.stdin)
    encoded = [attempt(lambda t=t: bytes(build(t)).hex()) for t in req.get("trees", [])]
    reencoded = [
        attempt(lambda h=h: bytes(BinaryReader(bytes.fromhex(h)).tgread_object()).hex())
        for h in req.get("decode", [])
    ]
    json.dump({"layer": LAYER, "encoded": encoded, "reencoded": reencoded}, sys.stdout)


if __name__ == "__main__":
    main()
