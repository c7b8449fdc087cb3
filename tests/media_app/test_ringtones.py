"""Saved ringtones: newest first, capped at ringtone_saved_count_max (the oldest falls
off), only audio documents within ringtone_size_max, and the list hash follows the list."""

from __future__ import annotations

import asyncio

import pytest

from media_app import ringtones
from media_app.actions import document_dict
from media_app.models import Document, SavedRingtone
from tl.errors import RingtoneInvalidError

pytestmark = pytest.mark.django_db(transaction=True)


def _doc(i: int, mime: str = "audio/mpeg", size: int = 1000) -> dict:
    d = Document.objects.create(
        id=10_000 + i,
        access_hash=i,
        file_reference=b"r",
        owner_id=1,
        date=0,
        mime_type=mime,
        size=size,
        sha256="",
    )
    return document_dict(d)


def test_list_order_cap_and_checks(monkeypatch):
    monkeypatch.setattr(ringtones, "SAVED_MAX", 3)
    docs = [_doc(i) for i in range(5)]
    for d in docs:
        assert asyncio.run(ringtones.do_save_ringtone(7, d, unsave=False))
    assert not asyncio.run(ringtones.do_save_ringtone(7, docs[4], unsave=False))  # already there
    listed = asyncio.run(ringtones.saved_ringtones(7))
    assert [d["id"] for d in listed] == [docs[4]["id"], docs[3]["id"], docs[2]["id"]]
    before = ringtones.list_hash(listed)

    assert asyncio.run(ringtones.do_save_ringtone(7, docs[3], unsave=True))
    after = asyncio.run(ringtones.saved_ringtones(7))
    assert [d["id"] for d in after] == [docs[4]["id"], docs[2]["id"]] and ringtones.list_hash(after) != before

    with pytest.raises(RingtoneInvalidError):
        asyncio.run(ringtones.do_save_ringtone(7, _doc(50, mime="image/png"), unsave=False))
    with pytest.raises(RingtoneInvalidError):
        asyncio.run(ringtones.do_save_ringtone(7, _doc(51, size=ringtones.SIZE_MAX + 1), unsave=False))
    assert SavedRingtone.objects.filter(user_id=7).count() == 2
