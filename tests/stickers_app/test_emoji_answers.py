"""The emoji panel's start-up answers from this server's sets: keywords (versioned, an
exact difference between versions), categories from featured custom emoji sets, default
statuses from the operator's stand-in set."""

from __future__ import annotations

from stickers_app import emoji_groups, keywords, operator
from stickers_app.models import EmojiKeywordsVersion, SetSticker
from tests.console_app.conftest import run
from tests.stickers_app.test_operator import folder, webp


def _emoji_set(tmp_path, **kw):
    path = folder(
        tmp_path,
        {"a.webp": webp(100, 100), "b.webp": webp(100, 100)},
        {
            "a.webp": {"emoji": "🅰️", "keywords": ["Letter", "alpha"]},
            "b.webp": {"emoji": "⭐", "keywords": ["star"]},
        },
    )
    return operator.import_folder(path, title="ACME", short_name="acme_kw", kind="emojis", **kw)


def test_no_sets_no_keywords_no_languages(transactional_db):
    assert run(keywords.difference, 0) == (0, [], [])
    assert run(keywords.languages, ["en"]) == []
    assert run(emoji_groups.groups) == (0, [])
    assert run(emoji_groups.default_statuses, "emoji_default_statuses") == (0, [])
    assert not EmojiKeywordsVersion.objects.exists()


def test_keywords_are_versioned_and_the_difference_is_exact(transactional_db, tmp_path):
    _emoji_set(tmp_path)
    v1, added, removed = run(keywords.difference, 0)
    assert v1 == 1 and removed == []
    assert added == [("alpha", ["🅰️"]), ("letter", ["🅰️"]), ("star", ["⭐"])]
    assert run(keywords.difference, v1) == (v1, [], [])  # unchanged: nothing, same version
    assert run(keywords.languages, ["en", "de", "en", "x" * 40]) == ["en", "de"]

    SetSticker.objects.filter(emoji="⭐").update(keywords=["sun"])
    v2, added, removed = run(keywords.difference, v1)
    assert (v2, added, removed) == (2, [("sun", ["⭐"])], [("star", ["⭐"])])
    assert run(keywords.difference, v2) == (2, [], [])
    # From nothing (or a version no longer kept): the whole current list.
    assert run(keywords.difference, 0)[1] == [("alpha", ["🅰️"]), ("letter", ["🅰️"]), ("sun", ["⭐"])]
    assert EmojiKeywordsVersion.objects.count() == 2


def test_featured_emoji_sets_are_the_emoji_groups(transactional_db, tmp_path):
    row = _emoji_set(tmp_path)
    assert run(emoji_groups.groups) == (0, [])  # not featured: no category
    operator.feature(row.id, True)
    h, found = run(emoji_groups.groups)
    first = SetSticker.objects.filter(set_id=row.id).order_by("position").first().document_id
    assert h != 0 and found == [{"title": "ACME", "icon_emoji_id": first, "emoticons": ["🅰️", "⭐"]}]
    assert run(emoji_groups.groups)[0] == h  # stable while unchanged


def test_default_statuses_are_the_operators_stand_in_set(transactional_db, tmp_path):
    row = _emoji_set(tmp_path, special="emoji_default_statuses")
    h, ids = run(emoji_groups.default_statuses, "emoji_default_statuses")
    docs = list(
        SetSticker.objects.filter(set_id=row.id).order_by("position").values_list("document_id", flat=True)
    )
    assert ids == docs and h != 0
    assert run(emoji_groups.default_statuses, "emoji_channel_default_statuses") == (0, [])
