"""The files behind the reaction catalog: generated once, content-addressed, the same
documents however often they are made, downloadable by anyone."""

from __future__ import annotations

import gzip
import io
import json

import pytest
from PIL import Image

from media_app import reaction_assets, storage
from media_app.models import Document, MediaHolder
from message_core import reactions as rx
from tests.media_app.test_uploads import media_dirs  # noqa: F401  (autouse: a private media storage)

pytestmark = pytest.mark.django_db


def test_each_reaction_gets_an_icon_and_the_animations_once():
    some = rx.STANDARD[:3]
    docs = reaction_assets.do_ensure_reaction_documents(some)
    assert set(docs) == set(some) and all(set(d) == set(reaction_assets.ROLES) for d in docs.values())
    rows = Document.objects.count()
    assert rows == 3 * len(reaction_assets.ROLES)
    assert MediaHolder.objects.filter(holder="public").count() == rows

    icon = docs["👍"]["static_icon"]
    row = Document.objects.get(id=icon["id"])
    with storage.open_blob(row.sha256) as f:
        img = Image.open(io.BytesIO(f.read()))
    assert (img.format, img.size) == ("WEBP", (100, 100)) and icon["mime_type"] == "image/webp"
    assert {"_": "sticker", "alt": "👍"} in icon["attributes"]

    anim = Document.objects.get(id=docs["👍"]["select_animation"]["id"])
    assert anim.mime_type == "application/x-tgsticker"
    with storage.open_blob(anim.sha256) as f:
        lottie = json.loads(gzip.decompress(f.read()))
    assert lottie["tgs"] == 1 and lottie["w"] == lottie["h"] == 512 and lottie["op"] > 0 and lottie["layers"]

    # Made again (another process, a second run of the command): nothing changes.
    reaction_assets._ready.clear()
    again = reaction_assets.do_ensure_reaction_documents(some)
    assert again == docs and Document.objects.count() == rows


def test_lost_bytes_are_written_again_and_ids_do_not_move():
    docs = reaction_assets.do_ensure_reaction_documents(["🔥"])
    row = Document.objects.get(id=docs["🔥"]["effect_animation"]["id"])
    storage.media_storage().delete(storage.blob_name(row.sha256))
    reaction_assets._ready.clear()
    assert reaction_assets.do_ensure_reaction_documents(["🔥"]) == docs
    assert storage.media_storage().exists(storage.blob_name(row.sha256))


def test_a_wiped_database_is_noticed_by_the_memo():
    docs = reaction_assets.do_ensure_reaction_documents(["🎉"])
    Document.objects.all().delete()
    assert reaction_assets.do_ensure_reaction_documents(["🎉"]) == docs
    assert Document.objects.count() == len(reaction_assets.ROLES)


def test_different_reactions_look_different():
    assert reaction_assets.render_icon("👍") != reaction_assets.render_icon("❤")
    assert reaction_assets.render_icon("👍") == reaction_assets.render_icon("👍")
    assert reaction_assets.render_animation("👍", "appear_animation") == reaction_assets.render_animation(
        "👍", "appear_animation"
    )
