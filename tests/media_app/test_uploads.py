"""Upload part rules, assembly into the content-addressed storage, expiry."""

from __future__ import annotations

import hashlib
import io
import os
import time

import pytest
from django.core.management import call_command

from media_app import storage, uploads
from tl import errors

KB = 1024


@pytest.fixture(autouse=True)
def media_dirs(tmp_path, settings):
    settings.TELESRV_UPLOADS_DIR = tmp_path / "uploads"
    settings.STORAGES = {
        **settings.STORAGES,
        "telesrv_media": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "files")},
        },
    }
    from django.core.files.storage import storages

    storages._storages.pop("telesrv_media", None)
    storages.backends  # noqa: B018  (re-read)
    storages._backends = None
    yield tmp_path
    storages._storages.pop("telesrv_media", None)
    storages._backends = None


def test_parts_assemble_once_into_content_addressed_storage(media_dirs):
    data = os.urandom(3 * 512 * KB + 100)
    for i in range(4):
        uploads.save_part(7, 1, i, data[i * 512 * KB : (i + 1) * 512 * KB], total=4)
    a = uploads.assemble(7, 1, 4, big=True)
    assert a.sha256 == hashlib.sha256(data).hexdigest() and a.size == len(data)
    assert storage.read_range(a.sha256, 512 * KB, 10) == data[512 * KB : 512 * KB + 10]
    # The parts are gone; a second use of the same upload finds the assembled file.
    assert not (media_dirs / "uploads" / "7" / "1" / "0").exists()
    assert uploads.assemble(7, 1, 4, big=True).sha256 == a.sha256
    # The same bytes uploaded again are stored once.
    uploads.save_part(7, 2, 0, data[: 512 * KB], total=4)
    for i in range(1, 4):
        uploads.save_part(7, 2, i, data[i * 512 * KB : (i + 1) * 512 * KB], total=4)
    assert uploads.assemble(7, 2, 4, big=True).sha256 == a.sha256
    assert sum(len(f) for _, _, f in os.walk(media_dirs / "files")) == 1


def test_part_rules():
    with pytest.raises(errors.FilePartInvalidError):
        uploads.save_part(1, 1, -1, b"x")
    with pytest.raises(errors.FilePartInvalidError):
        uploads.save_part(1, 1, 4000, b"x")
    with pytest.raises(errors.FilePartEmptyError):
        uploads.save_part(1, 1, 0, b"")
    with pytest.raises(errors.FilePartTooBigError):
        uploads.save_part(1, 1, 0, b"x" * (512 * KB + 1))
    with pytest.raises(errors.FilePartsInvalidError):
        uploads.save_part(1, 1, 0, b"x" * KB, total=4001)
    with pytest.raises(errors.FilePartInvalidError):
        uploads.save_part(1, 1, 5, b"x" * KB, total=5)
    # Not the last part of a big file: 1000 bytes is no multiple of 1 KB; 3 KB does not divide 512 KB.
    with pytest.raises(errors.FilePartSizeInvalidError):
        uploads.save_part(1, 1, 0, b"x" * 1000, total=3)
    with pytest.raises(errors.FilePartSizeInvalidError):
        uploads.save_part(1, 1, 0, b"x" * 3 * KB, total=3)
    uploads.save_part(1, 1, 2, b"x" * 10, total=3)  # the last part may be short
    with pytest.raises(errors.FilePartsInvalidError):
        uploads.save_part(1, 1, 1, b"x" * KB, total=4)  # the total changed mid-upload


def test_assembly_rules():
    with pytest.raises(errors.FilePartXMissingError) as missing:
        uploads.assemble(2, 9, 1, big=False)
    assert missing.value.message == "FILE_PART_0_MISSING"
    uploads.save_part(2, 1, 0, b"a" * 4 * KB)
    uploads.save_part(2, 1, 2, b"a" * 4 * KB)
    with pytest.raises(errors.FilePartXMissingError) as missing:
        uploads.assemble(2, 1, 3, big=False)
    assert missing.value.message == "FILE_PART_1_MISSING"
    uploads.save_part(2, 1, 1, b"a" * 8 * KB)
    with pytest.raises(errors.FilePartSizeChangedError):
        uploads.assemble(2, 1, 3, big=False)
    uploads.save_part(2, 3, 0, b"a" * 3 * KB)
    uploads.save_part(2, 3, 1, b"a")
    with pytest.raises(errors.FilePartSizeInvalidError):
        uploads.assemble(2, 3, 2, big=False)
    uploads.save_part(2, 4, 0, b"hello")
    with pytest.raises(errors.Md5ChecksumInvalidError):
        uploads.assemble(2, 4, 1, "0" * 32, big=False)
    assert uploads.assemble(2, 4, 1, hashlib.md5(b"hello").hexdigest(), big=False).size == 5
    with pytest.raises(errors.FilePartsInvalidError):
        uploads.assemble(2, 4, 4001, big=False)
    uploads.save_part(2, 5, 0, b"a" * KB, total=2)
    uploads.save_part(2, 5, 1, b"a", total=2)
    with pytest.raises(errors.FilePartsInvalidError):
        uploads.assemble(2, 5, 3, big=True)  # not the count the parts declared


def test_purge_command_deletes_only_expired_uploads(media_dirs):
    uploads.save_part(3, 1, 0, b"old")
    uploads.save_part(3, 2, 0, b"new")
    old = media_dirs / "uploads" / "3" / "1"
    past = time.time() - 7200
    os.utime(old, (past, past))
    out = io.StringIO()
    call_command("purge_uploads", "--ttl", "3600", stdout=out)
    assert "deleted 1 expired upload(s)" in out.getvalue()
    assert not old.exists() and (media_dirs / "uploads" / "3" / "2" / "0").exists()
