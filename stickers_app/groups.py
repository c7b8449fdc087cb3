"""The sticker set and the custom emoji set a megagroup chose (channels.setStickers /
setEmojiStickers): stored here, shown to members in channelFull. The channel's own
rules (megagroups only, the change_info right) are checked by channels_app first."""

from __future__ import annotations

from edge_app.orm_threads import in_thread
from tl.errors import StickersetInvalidError

from . import catalog
from .catalog import SetRef
from .models import GroupSet, StickerSet

GROUP_KINDS = ("stickers", "emojis")


def _ref(set_id: int | None) -> dict | None:
    row = StickerSet.objects.filter(id=set_id).only("id", "access_hash").first() if set_id else None
    return {"id": row.id, "access_hash": row.access_hash} if row else None


@in_thread
def do_set_group_set(channel_id: int, kind: str, ref: SetRef | None) -> tuple[dict, dict] | None:
    """Store (``ref`` None: clear) the group's set of ``kind``; a set of another kind is
    STICKERSET_INVALID. Returns (previous, new) as {"id", "access_hash"} (or None
    each) when it changed, None when it did not."""
    current = GroupSet.objects.filter(channel_id=channel_id, kind=kind).first()
    prev = _ref(current.set_id) if current else None
    if ref is None:
        if current is None:
            return None
        current.delete()
        return prev, None
    row = catalog.find_row(ref)
    if (row.kind == "emojis") != (kind == "emojis"):
        raise StickersetInvalidError()
    if current is not None and current.set_id == row.id:
        return None
    GroupSet.objects.update_or_create(channel_id=channel_id, kind=kind, defaults={"set_id": row.id})
    return prev, {"id": row.id, "access_hash": row.access_hash}


@in_thread
def group_sets(channel_id: int, viewer_id: int) -> dict[str, dict]:
    """kind -> set dict of the sets the group chose."""
    chosen = dict(GroupSet.objects.filter(channel_id=channel_id).values_list("kind", "set_id"))
    rows = {r.id: r for r in StickerSet.objects.filter(id__in=list(chosen.values()))}
    dicts = {d["id"]: d for d in catalog.set_dicts(list(rows.values()), viewer_id)}
    return {kind: dicts[sid] for kind, sid in chosen.items() if sid in dicts}
