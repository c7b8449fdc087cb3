"""How the sticker events of the account log (``events``) look to the user's other
sessions, live and in updates.getDifference."""

from __future__ import annotations

from accounts_app import updates
from edge_app.orm_threads import in_thread
from tl.errors import StickersetInvalidError

from . import catalog, events
from . import tl_convert as stickers_tl
from .catalog import SetRef
from .models import StickerSet


def _full(set_id: int, viewer_id: int) -> dict | None:
    row = StickerSet.objects.filter(id=set_id).first()
    if row is None:
        return None
    try:
        return catalog.full_set(catalog.find_row(SetRef(id=row.id, access_hash=row.access_hash)), viewer_id)
    except StickersetInvalidError:
        return None


async def _render(event, viewer_id: int):
    p = event.payload
    if event.type == events.SETS:
        ups = [stickers_tl.sets_update_to_tl(p.get("kind", "stickers"))]
    elif event.type == events.ORDER:
        ups = [stickers_tl.order_update_to_tl(p.get("kind", "stickers"), [int(i) for i in p["order"]])]
    elif event.type == events.NEW_SET:
        full = await in_thread(_full)(int(p["set_id"]), viewer_id)
        if full is None:  # deleted since: the panel just changed
            ups = [stickers_tl.sets_update_to_tl(p.get("kind", "stickers"))]
        else:
            ups = [stickers_tl.new_set_update_to_tl(full, viewer_id)]
    elif event.type == events.MOVE_TOP:
        ups = [stickers_tl.move_to_top_update_to_tl(p.get("kind", "stickers"), int(p["set_id"]))]
    else:
        ups = [stickers_tl.LIST_UPDATES[p.get("list", "recent")]()]
    return updates.Rendered(updates=ups)


def install() -> None:
    for kind in events.KINDS:
        updates.register_update_renderer(kind, _render)
