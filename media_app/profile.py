"""Profile photos: each user's list (newest first; the newest is the current one) and
the snapshot of the current one on the user row, which accounts_app renders."""

from __future__ import annotations

from django.db import transaction

from accounts_app.models import User
from accounts_app.render_changes import user_render_changed
from edge_app.orm_threads import in_thread
from message_core.clock import now
from tl.errors import PhotoIdInvalidError

from .actions import add_holders, photo_dict
from .models import Photo, ProfilePhoto


def _refresh_current(user_id: int) -> dict | None:
    row = ProfilePhoto.objects.filter(user_id=user_id).order_by("-date", "-id").first()
    photo = photo_dict(Photo.objects.get(id=row.photo_id)) if row else None
    User.objects.filter(id=user_id).update(photo=photo)
    # After the commit: a rendering made before it must not be cached again as new.
    transaction.on_commit(lambda: user_render_changed(user_id))
    return photo


@in_thread
def do_set_profile_photo(user_id: int, photo_id: int) -> dict:
    """Make a photo the user's current profile photo: a new upload, or one of the user's
    own photos (PHOTO_ID_INVALID otherwise). Profile photos are public."""
    with transaction.atomic():
        photo = Photo.objects.filter(id=photo_id, owner_id=user_id).first()
        if photo is None:
            raise PhotoIdInvalidError()
        ProfilePhoto.objects.update_or_create(user_id=user_id, photo_id=photo_id, defaults={"date": now()})
        add_holders([("p", photo_id)], "public", [0])
        _refresh_current(user_id)
    return photo_dict(photo)


@in_thread
def do_remove_current_photo(user_id: int) -> dict | None:
    """photos.updateProfilePhoto(inputPhotoEmpty): the current photo leaves the list;
    the one before it (if any) becomes current."""
    with transaction.atomic():
        row = ProfilePhoto.objects.filter(user_id=user_id).order_by("-date", "-id").first()
        if row is not None:
            row.delete()
        return _refresh_current(user_id)


@in_thread
def do_delete_photos(user_id: int, photo_ids: list[int]) -> list[int]:
    """photos.deletePhotos: the ids of the user's profile photos that were deleted."""
    with transaction.atomic():
        found = set(
            ProfilePhoto.objects.filter(user_id=user_id, photo_id__in=photo_ids).values_list(
                "photo_id", flat=True
            )
        )
        ProfilePhoto.objects.filter(user_id=user_id, photo_id__in=found).delete()
        if found:
            _refresh_current(user_id)
    return [i for i in dict.fromkeys(photo_ids) if i in found]


@in_thread
def get_user_photos(user_id: int, offset: int, max_id: int, limit: int) -> tuple[int, list[dict]]:
    """(count, page) of a user's profile photos, newest first; ``max_id`` starts after
    that photo."""
    ids = list(
        ProfilePhoto.objects.filter(user_id=user_id)
        .order_by("-date", "-id")
        .values_list("photo_id", flat=True)
    )
    count = len(ids)
    if max_id and max_id in ids:
        ids = ids[ids.index(max_id) + 1 :]
    page = ids[offset : offset + limit]
    photos = {p.id: photo_dict(p) for p in Photo.objects.filter(id__in=page)}
    return count, [photos[i] for i in page if i in photos]


@in_thread
def is_profile_photo(user_id: int, photo_id: int) -> bool:
    return ProfilePhoto.objects.filter(user_id=user_id, photo_id=photo_id).exists()
