"""TL objects of reactions across both chat kinds: the available-reactions catalog
with its documents, reaction lists (recent / top / tags), reactor lists, views and
read receipts."""

from __future__ import annotations

from media_app.tl_convert import document_to_tl
from message_core import reactions as rx
from message_core.tl_convert import peer_reaction_to_tl, reaction_to_tl
from tl import types

TITLES: dict[str, str] = {}  # emoji -> title; the emoji itself when unnamed


def available_reactions_to_tl(catalog_hash: int, emoticons: list[str], documents: dict[str, dict[str, dict]]):
    """messages.availableReactions: each emoji with its files (``documents``: emoji ->
    role -> document, from media_app.reaction_assets)."""
    out = []
    for emoticon in emoticons:
        docs = {role: document_to_tl(d) for role, d in documents[emoticon].items()}
        out.append(types.AvailableReaction(reaction=emoticon, title=TITLES.get(emoticon, emoticon), **docs))
    return types.messages.AvailableReactions(hash=catalog_hash, reactions=out)


def available_reactions_not_modified_to_tl():
    return types.messages.AvailableReactionsNotModified()


def reactions_list_to_tl(items: list[str], req_hash: int):
    """messages.reactions of recent / top reactions, notModified for the same hash."""
    h = rx.list_hash(items)
    if req_hash and req_hash == h:
        return types.messages.ReactionsNotModified()
    return types.messages.Reactions(hash=h, reactions=[reaction_to_tl(r) for r in items])


def saved_tags_to_tl(counts: dict[str, int], titles: dict[str, str], req_hash: int):
    """The tags in use (reactions on Saved Messages, most used first) and the titled ones."""
    names = sorted(set(counts) | set(titles), key=lambda r: (-counts.get(r, 0), r))
    h = rx.list_hash([f"{r}\t{titles.get(r) or ''}\t{counts.get(r, 0)}" for r in names])
    if req_hash and req_hash == h:
        return types.messages.SavedReactionTagsNotModified()
    return types.messages.SavedReactionTags(
        tags=[
            types.SavedReactionTag(
                reaction=reaction_to_tl(r), title=titles.get(r) or None, count=counts.get(r, 0)
            )
            for r in names
        ],
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
