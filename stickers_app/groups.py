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


@in_thread
def do_set_group_set(channel_id: int, kind: str, ref: SetRef | None) -> bool:
    """Store (``ref`` None: clear) the group's set of ``kind``; a set of another kind is
    STICKERSET_INVALID. Returns whether anything changed."""
    if ref is None:
        return GroupSet.objects.filter(channel_id=channel_id, kind=kind).delete()[0] > 0
    row = catalog.find_row(ref)
    if (row.kind == "emojis") != (kind == "emojis"):
        raise StickersetInvalidError()
    current = GroupSet.objects.filter(channel_id=channel_id, kind=kind).first()
    if current is not None and current.set_id == row.id:
        return False
    GroupSet.objects.update_or_create(channel_id=channel_id, kind=kind, defaults={"set_id": row.id})
    return True


@in_thread
def group_sets(channel_id: int, viewer_id: int) -> dict[str, dict]:
    """kind -> set dict of the sets the group chose."""
    chosen = dict(GroupSet.objects.filter(channel_id=channel_id).values_list("kind", "set_id"))
    rows = {r.id: r for r in StickerSet.objects.filter(id__in=list(chosen.values()))}
    dicts = {d["id"]: d for d in catalog.set_dicts(list(rows.values()), viewer_id)}
    return {kind: dicts[sid] for kind, sid in chosen.items() if sid in dicts}
