"""A message's media in the Bot API's shapes: PhotoSize lists, Document, Video, Audio,
Voice, Animation, Sticker and Poll, read from the stored media dicts of media_app and
polls_app.

Called from ``shapes.message`` inside ORM threads (a poll's results are read here)."""

from __future__ import annotations

from collections.abc import Callable

from . import files

# shapes.entities_out, handed in (shapes imports this module).
Entities = Callable[[str, list[dict], dict], list[dict]]


def _attrs(doc: dict) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for a in doc.get("attributes") or []:
        out.setdefault(a.get("_", ""), a)
    return out


def _common(doc: dict, *, name: bool = True) -> dict:
    d = files.document(doc)
    if not name:
        d.pop("file_name", None)
    return d


def _video_size(a: dict) -> dict:
    return {
        "width": int(a.get("w") or 0),
        "height": int(a.get("h") or 0),
        "duration": int(a.get("duration") or 0),
    }


def document_fields(doc: dict, kind: str) -> dict:
    """``kind`` is the message media's kind (media_app's: video, gif, music, voice,
    sticker, round, document)."""
    by = _attrs(doc)
    if kind == "sticker" and "sticker" in by:
        size = by.get("image_size") or by.get("video") or {}
        mime = doc.get("mime_type") or ""
        sticker = {
            **_common(doc, name=False),
            "type": "custom_emoji" if "custom_emoji" in by else "regular",
            "width": int(size.get("w") or 512),
            "height": int(size.get("h") or 512),
            "is_animated": mime == "application/x-tgsticker",
            "is_video": mime == "video/webm",
        }
        sticker.pop("mime_type", None)
        if by["sticker"].get("alt"):
            sticker["emoji"] = by["sticker"]["alt"]
        if by["sticker"].get("set_name"):
            sticker["set_name"] = by["sticker"]["set_name"]
        return {"sticker": sticker}
    if kind == "voice" and "audio" in by:
        voice = {**_common(doc, name=False), "duration": int(by["audio"].get("duration") or 0)}
        return {"voice": voice}
    if kind == "music" and "audio" in by:
        audio = {**_common(doc), "duration": int(by["audio"].get("duration") or 0)}
        for field in ("performer", "title"):
            if by["audio"].get(field):
                audio[field] = by["audio"][field]
        return {"audio": audio}
    if kind == "gif":
        size = by.get("video") or by.get("image_size") or {}
        animation = {**_common(doc), **_video_size(size)}
        # As Telegram: an animation is also given as a document, for older bots.
        return {"animation": animation, "document": _common(doc)}
    if kind == "round" and "video" in by:
        note = {**_common(doc, name=False), "length": int(by["video"].get("w") or 0),
                "duration": int(by["video"].get("duration") or 0)}  # fmt: skip
        note.pop("mime_type", None)
        return {"video_note": note}
    if kind == "video" and "video" in by:
        return {"video": {**_common(doc), **_video_size(by["video"])}}
    return {"document": _common(doc)}


def poll(snapshot: dict, results: dict | None, row, entities_out: Entities, *, reveal: bool = False) -> dict:
    """A Poll: its options with the voters counted, and for a quiz its correct option
    and explanation where the Bot API shows them (``reveal``: the quiz was sent by this
    bot or in its private chat; a closed quiz shows them to everyone)."""
    counts = (results or {}).get("counts") or {}
    options = []
    for a in snapshot.get("answers") or []:
        # persistent_id: the option's own bytes, which never change (the newer Bot API
        # names options by it).
        o = {"persistent_id": a["option"], "text": a["text"], "voter_count": int(counts.get(a["option"], 0))}
        ents = entities_out(a["text"], a.get("entities") or [], {})
        if ents:
            o["text_entities"] = ents
        options.append(o)
    closed = bool((results or {}).get("closed")) or bool(row is not None and row.closed)
    d = {
        "id": str(snapshot["id"]),
        "question": snapshot["question"],
        "options": options,
        "total_voter_count": int((results or {}).get("total") or 0),
        "is_closed": closed,
        "is_anonymous": not snapshot.get("public_voters"),
        "type": "quiz" if snapshot.get("quiz") else "regular",
        "allows_multiple_answers": bool(snapshot.get("multiple_choice")),
        "allows_revoting": not snapshot.get("quiz"),  # a quiz answer is final
        "members_only": False,
    }
    q_entities = entities_out(snapshot["question"], snapshot.get("question_entities") or [], {})
    if q_entities:
        d["question_entities"] = q_entities
    if snapshot.get("quiz") and row is not None and (reveal or closed):
        options_hex = [a["option"] for a in snapshot.get("answers") or []]
        if row.correct and row.correct[0] in options_hex:
            d["correct_option_id"] = options_hex.index(row.correct[0])
            d["correct_option_ids"] = [d["correct_option_id"]]
        if row.solution:
            d["explanation"] = row.solution
            ents = entities_out(row.solution, row.solution_entities or [], {})
            if ents:
                d["explanation_entities"] = ents
    if snapshot.get("close_period"):
        d["open_period"] = int(snapshot["close_period"])
    if snapshot.get("close_date"):
        d["close_date"] = int(snapshot["close_date"])
    return d


def poll_of_media(media: dict, entities_out: Entities, *, reveal: bool) -> dict:
    """The Poll of a message's poll media, with the totals everyone sees."""
    from polls_app import actions as polls
    from polls_app.models import Poll

    snapshot = media["poll"]
    poll_id = int(snapshot["id"])
    results = polls.results_of([poll_id], 0).get(poll_id)
    return poll(snapshot, results, Poll.objects.filter(id=poll_id).first(), entities_out, reveal=reveal)


def location(geo: dict, live: dict | None = None) -> dict:
    d = {"latitude": geo["lat"], "longitude": geo["long"]}
    if geo.get("accuracy_radius"):
        d["horizontal_accuracy"] = float(geo["accuracy_radius"])
    if live:
        d["live_period"] = int(live["period"])
        if live.get("heading"):
            d["heading"] = int(live["heading"])
        if live.get("proximity_notification_radius"):
            d["proximity_alert_radius"] = int(live["proximity_notification_radius"])
    return d


def _venue(media: dict) -> dict:
    v = media["venue"]
    d = {"location": location(media["geo"]), "title": v["title"], "address": v["address"]}
    prefix = {"foursquare": "foursquare", "gplaces": "google_place"}.get(v.get("provider") or "")
    if prefix and v.get("venue_id"):
        d[f"{prefix}_id"] = v["venue_id"]
        if v.get("venue_type"):
            d[f"{prefix}_type"] = v["venue_type"]
    return d


def _contact(c: dict) -> dict:
    d = {"phone_number": c["phone_number"], "first_name": c["first_name"]}
    for field in ("last_name", "vcard", "user_id"):
        if c.get(field):
            d[field] = c[field]
    return d


def value_fields(media: dict) -> dict:
    """Dice, locations, venues and contacts."""
    kind = media.get("kind")
    if kind == "dice":
        return {"dice": {"emoji": media["dice"]["emoticon"], "value": int(media["dice"]["value"])}}
    if kind == "geo":
        return {"location": location(media["geo"])}
    if kind == "geo_live":
        return {"location": location(media["geo"], media.get("live"))}
    if kind == "venue":
        venue = _venue(media)
        return {"venue": venue, "location": venue["location"]}  # as Telegram: both
    if kind == "contact":
        return {"contact": _contact(media["contact"])}
    return {}


def media_fields(media: dict, entities_out: Entities, *, reveal_quiz: bool = False) -> dict:
    """The Message fields of a stored media dict (none for kinds not shown yet)."""
    if media.get("photo"):
        return {"photo": files.photo_sizes(media["photo"])}
    if media.get("document"):
        return document_fields(media["document"], media.get("kind") or "document")
    if media.get("kind") == "poll" and media.get("poll"):
        return {"poll": poll_of_media(media, entities_out, reveal=reveal_quiz)}
    action = media.get("action")
    if action is not None:
        # A private service message (private_app.actions.do_send_private_service).
        if action.get("type") == "web_view_data":
            return {"web_app_data": {"data": action.get("data", ""), "button_text": action.get("text", "")}}
        return {}
    return value_fields(media)
