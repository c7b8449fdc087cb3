"""TL objects of reactions across both chat kinds: the available-reactions catalog
with its documents, reaction lists (recent / top / tags), reactor lists, views and
read receipts.

The catalog's documents (static icon and the four animations each reaction needs)
are metadata only, with stable ids derived from the reaction and the document's role:
no media store exists yet, so they have size 0 and no file behind them (a client
shows the emoji itself). Once media lands, the same ids can point at real files."""

from __future__ import annotations

import hashlib

from message_core import reactions as rx
from message_core.tl_convert import peer_reaction_to_tl, reaction_to_tl
from tl import types

CATALOG_DATE = 1_700_000_000  # fixed, so a document never looks changed
_ROLES = {
    "static_icon": ("image/webp", "icon.webp"),
    "appear_animation": ("application/x-tgsticker", "appear.tgs"),
    "select_animation": ("application/x-tgsticker", "select.tgs"),
    "activate_animation": ("application/x-tgsticker", "activate.tgs"),
    "effect_animation": ("application/x-tgsticker", "effect.tgs"),
    "around_animation": ("application/x-tgsticker", "around.tgs"),
    "center_icon": ("application/x-tgsticker", "center.tgs"),
}
TITLES: dict[str, str] = {}  # emoji -> title; the emoji itself when unnamed


def _stable_id(*parts: str) -> int:
    digest = hashlib.blake2b("\x00".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") & 0x7FFF_FFFF_FFFF_FFFF or 1


def reaction_document_to_tl(emoticon: str, role: str, dc_id: int):
    mime, name = _ROLES[role]
    return types.Document(
        id=_stable_id("reaction", emoticon, role),
        access_hash=_stable_id("reaction-hash", emoticon, role),
        file_reference=b"",
        date=CATALOG_DATE,
        mime_type=mime,
        size=0,
        dc_id=dc_id,
        attributes=[
            types.DocumentAttributeImageSize(w=512, h=512),
            types.DocumentAttributeSticker(alt=emoticon, stickerset=types.InputStickerSetEmpty()),
            types.DocumentAttributeFilename(file_name=name),
        ],
    )


def available_reactions_to_tl(req_hash: int, dc_id: int):
    current = rx.catalog_hash()
    if req_hash == current:
        return types.messages.AvailableReactionsNotModified()
    out = []
    for emoticon in rx.STANDARD:
        docs = {role: reaction_document_to_tl(emoticon, role, dc_id) for role in _ROLES}
        out.append(types.AvailableReaction(reaction=emoticon, title=TITLES.get(emoticon, emoticon), **docs))
    return types.messages.AvailableReactions(hash=current, reactions=out)


def reactions_list_to_tl(items: list[str], req_hash: int):
    """messages.reactions of recent / top reactions, notModified for the same hash."""
    h = rx.list_hash(items)
    if req_hash and req_hash == h:
        return types.messages.ReactionsNotModified()
    return types.messages.Reactions(hash=h, reactions=[reaction_to_tl(r) for r in items])


def saved_tags_to_tl(tags: list[tuple[str, str]], req_hash: int):
    h = rx.list_hash([f"{r}\t{t}" for r, t in tags])
    if req_hash and req_hash == h:
        return types.messages.SavedReactionTagsNotModified()
    return types.messages.SavedReactionTags(
        tags=[types.SavedReactionTag(reaction=reaction_to_tl(r), title=t or None, count=0) for r, t in tags],
        hash=h,
    )


def saved_tags_update_to_tl():
    return types.UpdateSavedReactionTags()


def reactors_to_tl(count: int, rows: list[dict], next_offset: str | None, viewer_id: int, chats, users):
    return types.messages.MessageReactionsList(
        count=count,
        reactions=[peer_reaction_to_tl(r, viewer_id) for r in rows],
        chats=chats,
        users=users,
        next_offset=next_offset,
    )


def read_participants_to_tl(readers: list[tuple[int, int]]):
    return [types.ReadParticipantDate(user_id=u, date=d) for u, d in readers]


def outbox_read_date_to_tl(date: int):
    return types.OutboxReadDate(date=date)
