"""Notification sounds: audio documents of the media store kept in a user's list
(account.getSavedRingtones), uploaded (account.uploadRingtone) or saved from a chat
(account.saveRingtone). Limits are the ones help.getAppConfig announces
(``ringtone_size_max``, ``ringtone_saved_count_max``)."""

from __future__ import annotations

import zlib

from django.db import IntegrityError, transaction

from message_core.clock import now
from tl.errors import RingtoneInvalidError, RingtoneMimeInvalidError, RingtoneSizeTooBigError

from .actions import UploadRef, do_upload_document, document_dict, in_thread
from .models import Document, SavedRingtone

SIZE_MAX = 307200
SAVED_MAX = 100


def _check_mime(mime_type: str) -> None:
    if not (mime_type or "").strip().lower().startswith("audio/"):
        raise RingtoneMimeInvalidError()


async def do_upload_ringtone(owner_id: int, ref: UploadRef, file_name: str, mime_type: str) -> dict:
    """account.uploadRingtone: the audio becomes a document, first in the owner's list."""
    _check_mime(mime_type)
    doc = await do_upload_document(
        owner_id, ref, mime_type, [{"_": "filename", "file_name": file_name[:255]}]
    )
    if doc["size"] > SIZE_MAX:
        await in_thread(lambda: Document.objects.filter(id=doc["id"]).delete())()
        raise RingtoneSizeTooBigError()
    await in_thread(_add)(owner_id, doc["id"])
    return doc


def _add(user_id: int, document_id: int) -> bool:
    """Put the document first in the list; False if it was already there. The oldest
    falls off past SAVED_MAX."""
    with transaction.atomic():
        if SavedRingtone.objects.filter(user_id=user_id, document_id=document_id).exists():
            return False
        try:
            with transaction.atomic():
                SavedRingtone.objects.create(user_id=user_id, document_id=document_id, date=now())
        except IntegrityError:
            return False
        stale = (
            SavedRingtone.objects.filter(user_id=user_id)
            .order_by("-id")
            .values_list("id", flat=True)[SAVED_MAX:]
        )
        SavedRingtone.objects.filter(id__in=list(stale)).delete()
    return True


@in_thread
def do_save_ringtone(user_id: int, doc: dict, *, unsave: bool) -> bool:
    """account.saveRingtone: add (or remove) an audio document the user can see; True
    when the list changed."""
    if unsave:
        return SavedRingtone.objects.filter(user_id=user_id, document_id=doc["id"]).delete()[0] > 0
    if not (doc.get("mime_type") or "").startswith("audio/") or doc["size"] > SIZE_MAX:
        raise RingtoneInvalidError()
    return _add(user_id, doc["id"])


@in_thread
def saved_ringtones(user_id: int) -> list[dict]:
    ids = list(
        SavedRingtone.objects.filter(user_id=user_id)
        .order_by("-id")
        .values_list("document_id", flat=True)[:SAVED_MAX]
    )
    docs = {d.id: document_dict(d) for d in Document.objects.filter(id__in=ids)}
    return [docs[i] for i in ids if i in docs]


def list_hash(docs: list[dict]) -> int:
    """The list's hash for savedRingtonesNotModified (changes with any id or order)."""
    return zlib.crc32(",".join(str(d["id"]) for d in docs).encode()) or 1
