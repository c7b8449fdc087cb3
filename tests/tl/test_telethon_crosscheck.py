"""Our codec against Telethon's, in both directions: Telethon 1.45 (layer 229, the
project venv), 1.44.0 (layer 227), 1.43.2 (layer 224) and 1.36.0 (layer 181), each in its own venv
(tests/support/client_venvs).

For each object: Telethon's bytes equal the schema-driven reference, decode with our
codec to our equal object, and our encoding for that layer decodes with Telethon and
serializes back to the same bytes."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.client_venvs import client_python
from tl import layers

from .schema_values import TreeGen, build_ours, ref_encode, schema_maps, to_json, zero

SCRIPT = Path(__file__).with_name("telethon_xcheck.py")
# Telethon's hand-patched Message classes rewrite these (messageMediaEmpty becomes no
# media; messageService and messageEmpty cannot be built from keywords alone); kept
# out of the trees.
TELETHON_PATCHED = frozenset({"messageMediaEmpty", "messageService", "messageEmpty"})
NAMED = [
    "message",
    "channel",
    "channelFull",
    "updates",
    "updateNewChannelMessage",
    "updates.channelDifference",
    "messages.channelMessages",
    "user",
    "config",
    "messages.sendMessage",
    "channels.joinChannel",
]


def _telethon(python, request):
    out = subprocess.run(
        [str(python), str(SCRIPT)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        cwd="/",  # never import the project's packages from the client venv
    )
    return json.loads(out.stdout)


def _retyped_required(layer):
    """Constructors with a required field the primary layer has under another type, or
    a required boxed field it lacks: our objects cannot carry a value for it
    (tl/README.md, "Layers")."""
    by_name, _ = schema_maps(layer)
    prim, _ = schema_maps(229)
    out = set()
    for n, c in by_name.items():
        theirs = {p.name: str(p.type) for p in prim[n].params} if n in prim else {}
        if n in prim and any(
            p.flag_field is None
            and not p.is_flags
            and (
                theirs.get(p.name, str(p.type)) != str(p.type)
                or (p.name not in theirs and zero(p.type) is None)
            )
            for p in c.params
        ):
            out.add(n)
    return frozenset(out)


def _trees(layer, count=300):
    by_name, _ = schema_maps(layer)
    prim, _ = schema_maps(229)
    avoid = TELETHON_PATCHED | _retyped_required(layer)
    common = sorted(n for n in by_name if n in prim and n not in avoid)
    rng = random.Random(layer)
    names = [n for n in NAMED for _ in range(8)] + rng.sample(common, count - 8 * len(NAMED))
    return [TreeGen(layer, seed=i, avoid=avoid).tree(by_name[n]) for i, n in enumerate(names)]


CLIENTS = {229: None, 227: "Telethon==1.44.0", 224: "Telethon==1.43.2", 181: "Telethon==1.36.0"}


def _python_for(layer):
    if CLIENTS[layer] is None:
        return Path(sys.executable)
    try:
        return client_python(CLIENTS[layer])
    except (subprocess.SubprocessError, OSError) as e:  # pragma: no cover - no PyPI
        pytest.fail(f"cannot create the {CLIENTS[layer]} venv: {e}")


@pytest.mark.parametrize("layer", list(CLIENTS))
def test_telethon_agrees_both_ways(layer):
    python = _python_for(layer)
    trees = _trees(layer)
    first = _telethon(python, {"trees": [to_json(t, layer) for t in trees]})
    assert first["layer"] == layer
    problems = []
    ours_encoded = []
    for tree, hexed in zip(trees, first["encoded"], strict=True):
        name = tree["_"]
        if hexed.startswith("error"):
            problems.append((name, "telethon cannot build", hexed))
            ours_encoded.append("00000000")
            continue
        theirs = bytes.fromhex(hexed)
        ours = build_ours(tree, layer)
        if theirs != ref_encode(tree, layer):
            problems.append((name, "telethon differs from the reference"))
        if layers.decode(theirs, layer) != ours:
            problems.append((name, "our decode of telethon's bytes differs"))
        ours_encoded.append(layers.encode(ours, layer).hex())
    second = _telethon(python, {"decode": ours_encoded})
    for tree, hexed, back in zip(trees, first["encoded"], second["reencoded"], strict=True):
        if not hexed.startswith("error") and back != hexed:
            problems.append((tree["_"], "telethon's decode of our bytes differs", back[:200]))
    assert not problems, problems[:10]
    assert len(trees) >= 300
