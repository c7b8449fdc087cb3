"""The media storage: assembled files, named by the SHA-256 of their bytes, behind
Django's storage API (``STORAGES["telesrv_media"]``: a directory under the state
directory by default, an S3-compatible bucket when configured). The same bytes sent
twice, or forwarded, are stored once."""

from __future__ import annotations

from django.core.files import File
from django.core.files.storage import storages

ALIAS = "telesrv_media"


def media_storage():
    return storages[ALIAS]


def blob_name(sha256: str) -> str:
    return f"{sha256[:2]}/{sha256[2:4]}/{sha256}"


def put_file(sha256: str, fileobj) -> None:
    """Store an open file under its hash unless those bytes are stored already."""
    storage = media_storage()
    name = blob_name(sha256)
    if not storage.exists(name):
        fileobj.seek(0)
        storage.save(name, File(fileobj, name=name))


def put_bytes(sha256: str, data: bytes) -> None:
    from django.core.files.base import ContentFile

    storage = media_storage()
    name = blob_name(sha256)
    if not storage.exists(name):
        storage.save(name, ContentFile(data, name=name))


def read_range(sha256: str, offset: int, limit: int) -> bytes:
    """``limit`` bytes from ``offset`` (fewer at the end): only that window is read."""
    with media_storage().open(blob_name(sha256), "rb") as f:
        f.seek(offset)
        return f.read(limit)


def open_blob(sha256: str):
    return media_storage().open(blob_name(sha256), "rb")
