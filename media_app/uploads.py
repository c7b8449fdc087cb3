"""Uploaded file parts (upload.saveFilePart / saveBigFilePart), kept on local disk
until a message or photo uses them, then assembled once into the media storage.

Layout: ``<uploads dir>/<owner>/<file_id>/<part number>``; a big upload also keeps
``total`` (its declared part count). Assembly streams the parts through SHA-256 (the
storage name) and MD5 (the client's checksum of a small file), so no file is ever held
in memory whole. A directory untouched for ``TELESRV_UPLOAD_TTL`` seconds is expired
(``manage.py purge_uploads``).

Telegram's rules: a part is at most 512 KB; every part but the last has the same size,
a multiple of 1 KB that divides 512 KB; at most 4000 parts (2 GB) per file."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from tl.errors import (
    FilePartEmptyError,
    FilePartInvalidError,
    FilePartsInvalidError,
    FilePartSizeChangedError,
    FilePartSizeInvalidError,
    FilePartTooBigError,
    FilePartXMissingError,
    Md5ChecksumInvalidError,
)

from . import storage

KB = 1024
PART_MAX = 512 * KB
PARTS_MAX = 4000
FILE_MAX = 2000 * 1024 * KB  # 2 GB = 4000 parts of 512 KB
CHUNK = 1024 * KB
DONE = "assembled"  # marker left after assembly: "<sha256> <size> <md5>"


@dataclass(frozen=True)
class Assembled:
    sha256: str
    size: int
    md5: str
    path: Path | None = None  # a local copy while the caller still needs it (images)


def uploads_dir() -> Path:
    return Path(settings.TELESRV_UPLOADS_DIR)


def _dir(owner_id: int, file_id: int) -> Path:
    return uploads_dir() / str(int(owner_id)) / str(int(file_id) & 0xFFFFFFFFFFFFFFFF)


def valid_part_size(n: int) -> bool:
    return 0 < n <= PART_MAX and n % KB == 0 and PART_MAX % n == 0


def save_part(owner_id: int, file_id: int, part: int, data: bytes, total: int | None = None) -> None:
    """Store one part (``total``: the part count of a big upload)."""
    if total is not None and not 0 < total <= PARTS_MAX:
        raise FilePartsInvalidError()
    if not 0 <= part < (total if total is not None else PARTS_MAX):
        raise FilePartInvalidError()
    if not data:
        raise FilePartEmptyError()
    if len(data) > PART_MAX:
        raise FilePartTooBigError()
    last = total is not None and part == total - 1
    if total is not None and not last and not valid_part_size(len(data)):
        raise FilePartSizeInvalidError()
    d = _dir(owner_id, file_id)
    d.mkdir(parents=True, exist_ok=True)
    if total is not None:
        marker = d / "total"
        if marker.exists():
            if int(marker.read_text() or 0) != total:
                raise FilePartsInvalidError()
        else:
            marker.write_text(str(total))
    # Written beside, then renamed: a concurrent assembly never sees half a part.
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".part")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, d / str(part))


def assemble(
    owner_id: int, file_id: int, parts: int, md5_checksum: str = "", *, big: bool, keep_local: bool = False
) -> Assembled:
    """Check the parts of an upload, stream them into the media storage (once: a second
    use of the same upload finds the marker) and drop them. ``keep_local`` leaves a
    temporary copy for the caller (delete it with :func:`discard`)."""  # fmt: skip
    if not 0 < parts <= PARTS_MAX:
        raise FilePartsInvalidError()
    d = _dir(owner_id, file_id)
    done = d / DONE
    if done.exists():
        sha, size, md5 = done.read_text().split()
        if keep_local:
            return Assembled(sha, int(size), md5, _local_copy(sha))
        return Assembled(sha, int(size), md5)
    if not d.is_dir():
        raise FilePartXMissingError(0)
    if big:
        marker = d / "total"
        if not marker.exists() or int(marker.read_text() or 0) != parts:
            raise FilePartsInvalidError()
    sizes = []
    for i in range(parts):
        try:
            sizes.append((d / str(i)).stat().st_size)
        except FileNotFoundError:
            raise FilePartXMissingError(i) from None
    if parts > 1:
        if not valid_part_size(sizes[0]):
            raise FilePartSizeInvalidError()
        if any(s != sizes[0] for s in sizes[:-1]) or sizes[-1] > sizes[0]:
            raise FilePartSizeChangedError()
    total = sum(sizes)
    if total > FILE_MAX:
        raise FilePartsInvalidError()
    sha, md5 = hashlib.sha256(), hashlib.md5()
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".whole")
    try:
        with os.fdopen(fd, "wb") as out:
            for i in range(parts):
                with open(d / str(i), "rb") as f:
                    while chunk := f.read(CHUNK):
                        sha.update(chunk)
                        md5.update(chunk)
                        out.write(chunk)
        if md5_checksum and md5_checksum.lower() != md5.hexdigest():
            raise Md5ChecksumInvalidError()
        with open(tmp, "rb") as f:
            storage.put_file(sha.hexdigest(), f)
        local = None
        if keep_local:
            local = Path(tempfile.mkstemp(prefix="telesrv-media-")[1])
            shutil.move(tmp, local)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    for i in range(parts):
        (d / str(i)).unlink(missing_ok=True)
    done.write_text(f"{sha.hexdigest()} {total} {md5.hexdigest()}")
    return Assembled(sha.hexdigest(), total, md5.hexdigest(), local)


def _local_copy(sha256: str) -> Path:
    fd, path = tempfile.mkstemp(prefix="telesrv-media-")
    with os.fdopen(fd, "wb") as out, storage.open_blob(sha256) as f:
        while chunk := f.read(CHUNK):
            out.write(chunk)
    return Path(path)


def discard(a: Assembled) -> None:
    if a.path is not None:
        a.path.unlink(missing_ok=True)


def expired_uploads(now: float | None = None, ttl: int | None = None) -> list[Path]:
    """Upload directories untouched for longer than the TTL."""
    now = time.time() if now is None else now
    ttl = settings.TELESRV_UPLOAD_TTL if ttl is None else ttl
    out = []
    root = uploads_dir()
    if not root.is_dir():
        return out
    for owner in root.iterdir():
        if not owner.is_dir():
            continue
        for d in owner.iterdir():
            if d.is_dir() and now - d.stat().st_mtime > ttl:
                out.append(d)
    return out


def purge(d: Path) -> None:
    shutil.rmtree(d, ignore_errors=True)
    with contextlib.suppress(OSError):
        d.parent.rmdir()  # the owner's directory, once empty
