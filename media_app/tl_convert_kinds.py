"""TL shapes of the media kinds that are values, not files: dice, geo points, venues,
live locations, contacts and polls (a poll's changing part, ``results``, is attached
per viewer by polls_app; without it the poll renders as a ``min`` result)."""

from __future__ import annotations

from message_core.clock import now
from message_core.tl_convert import entities_to_tl
from tl import types


def geo_to_tl(g: dict | None):
    if not g:
        return types.GeoPointEmpty()
    return types.GeoPoint(
        long=g["long"], lat=g["lat"], access_hash=g.get("access_hash", 0),
        accuracy_radius=g.get("accuracy_radius") or None,
    )  # fmt: skip


def _live_period(live: dict) -> int:
    """A stopped live location ends where it was stopped (clients show a live
    location as ended once date + period has passed)."""
    if live.get("stopped_at"):
        return max(1, live["stopped_at"] - live.get("date", live["stopped_at"]))
    return live["period"]


def poll_to_tl(p: dict, closed: bool):
    answers = [
        types.PollAnswer(
            text=types.TextWithEntities(text=a["text"], entities=entities_to_tl(a.get("entities"))),
            option=bytes.fromhex(a["option"]),
        )
        for a in p["answers"]
    ]
    return types.Poll(
        id=p["id"], closed=closed or None, public_voters=p.get("public_voters") or None,
        multiple_choice=p.get("multiple_choice") or None, quiz=p.get("quiz") or None,
        question=types.TextWithEntities(text=p["question"], entities=entities_to_tl(p.get("question_entities"))),
        answers=answers, close_period=p.get("close_period") or None, close_date=p.get("close_date") or None,
        hash=(p["id"] ^ int(closed)) & 0x7FFFFFFFFFFFFFFF,
    )  # fmt: skip


def poll_results_to_tl(p: dict, r: dict | None, *, min_: bool = False):
    """pollResults: as one viewer sees them (their choice, the quiz's answer once they
    voted); ``min_``: the totals only, each client keeps its own choice."""
    if r is None:
        return types.PollResults(min=True)
    chosen, correct = set(r.get("chosen") or ()), set(r.get("correct") or ())
    results = [
        types.PollAnswerVoters(
            chosen=(not min_ and a["option"] in chosen) or None,
            correct=(not min_ and a["option"] in correct) or None,
            option=bytes.fromhex(a["option"]),
            voters=r["counts"].get(a["option"], 0),
            recent_voters=[],
        )
        for a in p["answers"]
    ]
    recent = [types.PeerUser(user_id=u) for u in r.get("recent") or ()] if p.get("public_voters") else None
    solution = r.get("solution") if not min_ else None
    return types.PollResults(
        min=min_ or None, results=results, total_voters=r["total"], recent_voters=recent or None,
        solution=solution or None, solution_entities=entities_to_tl(r.get("solution_entities")) if solution else None,
    )  # fmt: skip


def poll_media_to_tl(m: dict):
    r = m.get("results")
    closed = bool(r and r.get("closed")) or bool(
        m["poll"].get("close_date") and m["poll"]["close_date"] <= now()
    )
    return types.MessageMediaPoll(
        poll=poll_to_tl(m["poll"], closed), results=poll_results_to_tl(m["poll"], r)
    )


def value_media_to_tl(m: dict):
    """The message media of a value kind, or None when ``m`` holds none."""
    kind = m.get("kind")
    if kind == "dice":
        return types.MessageMediaDice(value=m["dice"]["value"], emoticon=m["dice"]["emoticon"])
    if kind == "geo":
        return types.MessageMediaGeo(geo=geo_to_tl(m["geo"]))
    if kind == "venue":
        v = m["venue"]
        return types.MessageMediaVenue(
            geo=geo_to_tl(m["geo"]), title=v["title"], address=v["address"], provider=v["provider"],
            venue_id=v["venue_id"], venue_type=v["venue_type"],
        )  # fmt: skip
    if kind == "geo_live":
        live = m["live"]
        return types.MessageMediaGeoLive(
            geo=geo_to_tl(m["geo"]), heading=live.get("heading") or None, period=_live_period(live),
            proximity_notification_radius=live.get("proximity_notification_radius") or None,
        )  # fmt: skip
    if kind == "contact":
        c = m["contact"]
        return types.MessageMediaContact(
            phone_number=c["phone_number"], first_name=c["first_name"], last_name=c["last_name"],
            vcard=c["vcard"], user_id=c.get("user_id") or 0,
        )  # fmt: skip
    if kind == "poll":
        return poll_media_to_tl(m)
    return None
