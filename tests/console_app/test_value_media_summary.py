"""The console's one-line summary of value media (never a poll's voters)."""

from console_app.media import media_html, media_summary


def test_value_media_summaries():
    assert media_summary({"kind": "dice", "dice": {"emoticon": "🎲", "value": 4}}) == "dice 🎲 = 4"
    geo = {"lat": 52.52, "long": 13.405}
    assert media_summary({"kind": "geo", "geo": geo}) == "location 52.52000, 13.40500"
    venue = {"kind": "venue", "geo": geo, "venue": {"title": "<b>Cafe</b>", "address": "Main St"}}
    assert media_summary(venue).startswith("venue <b>Cafe</b> (Main St)")
    assert "&lt;b&gt;Cafe" in media_html(venue)  # escaped on the page
    poll = {"kind": "poll", "poll": {"question": "Lunch?", "quiz": False, "answers": [{"text": "a"}, {"text": "b"}]},
            "results": {"recent": [42]}}  # fmt: skip
    assert media_summary(poll) == "poll Lunch? [a / b]"
    contact = {"kind": "contact", "contact": {"first_name": "Bob", "last_name": "", "phone_number": "+1555"}}
    assert media_summary(contact) == "contact Bob +1555"
