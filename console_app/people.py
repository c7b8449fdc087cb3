"""Who a user id is, for console pages: name, @username and a link to the user's page
(only for staff who may open user pages; moderators see the name without the link).

A list page resolves the ids of all its rows in one query (``annotate_rows``); a
detail page resolves the ids of its one object.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import reverse
from django.utils.html import format_html

from accounts_app.models import User

OPERATOR = 0  # admin log actor / service message sender of the operator console


@dataclass(slots=True, frozen=True)
class Person:
    id: int
    name: str
    username: str | None
    deleted: bool


def people(user_ids) -> dict[int, Person]:
    ids = {int(u) for u in user_ids if u}
    if not ids:
        return {}
    rows = User.objects.filter(id__in=ids).values_list("id", "first_name", "last_name", "username", "deleted")
    return {
        uid: Person(uid, f"{first} {last}".strip(), username, deleted)
        for uid, first, last, username, deleted in rows
    }


def may_open_users(staff) -> bool:
    return staff.has_perm("accounts_app.view_user")


def person_html(user_id: int, known: dict[int, Person], link: bool, *, zero: str = "-") -> str:
    """``Name @username (id)``, the name linked to the user page when ``link``."""
    if not user_id:
        return zero
    who = known.get(user_id)
    if who is None:
        return format_html('<span class="console-person">user {}</span>', user_id)
    label = who.name or f"user {user_id}"
    if who.deleted:
        label = f"{label} (deleted account)"
    if link:
        url = reverse("admin:accounts_app_user_change", args=[user_id])
        name = format_html('<a href="{}">{}</a>', url, label)
    else:
        name = format_html("{}", label)
    handle = format_html(" <b>@{}</b>", who.username) if who.username else ""
    return format_html('<span class="console-person">{}{} <small>({})</small></span>', name, handle, user_id)


def annotate(objs, fields: tuple[str, ...], staff, extra=None) -> None:
    """Resolve every id in ``fields`` of ``objs`` (and what ``extra(obj)`` names) in one
    query and remember the result on each object (read back by :func:`shown`)."""
    objs = list(objs)
    ids = [getattr(o, f, 0) for o in objs for f in fields]
    if extra is not None:
        ids += [uid for o in objs for uid in extra(o)]
    known = people(ids)
    link = may_open_users(staff)
    for o in objs:
        o._console_people = known
        o._console_people_link = link


def shown(obj, field: str, *, zero: str = "-") -> str:
    known = getattr(obj, "_console_people", None)
    if known is None:  # a page that did not annotate: resolve just this one
        known = people([getattr(obj, field)])
    return person_html(getattr(obj, field), known, getattr(obj, "_console_people_link", False), zero=zero)


def plain(user_id: int, known: dict[int, Person] | None = None) -> str:
    """``Name @username (id)`` as text (log messages, confirmation pages)."""
    if not user_id:
        return "the operator console"
    known = known if known is not None else people([user_id])
    who = known.get(int(user_id))
    if who is None:
        return f"user {user_id}"
    handle = f" @{who.username}" if who.username else ""
    return f"{who.name or 'user'}{handle} ({user_id})"


def names(user_ids) -> dict[int, str]:
    """Display names (``Name``, else ``user N``) of the given ids, one query."""
    known = people(user_ids)
    return {uid: (p.name or f"user {uid}") for uid, p in known.items()}


_USER_ID = re.compile(r"\buser (\d{1,19})\b")


def named_text(text: str) -> str:
    """A log line written with bare ids ("banned user 2") with the names put in
    ("banned Bob Smith @bob (2)"); ids of unknown users stay as they are."""
    ids = {int(m) for m in _USER_ID.findall(text or "")}
    if not ids:
        return text
    known = people(ids)
    return _USER_ID.sub(
        lambda m: plain(int(m.group(1)), known) if int(m.group(1)) in known else m.group(0), text
    )


def display_names(obj) -> dict[int, str]:
    """The names :func:`annotate` resolved for ``obj`` (``user N`` for unknown ids)."""
    known = getattr(obj, "_console_people", None) or {}
    return {uid: (p.name or f"user {uid}") for uid, p in known.items()}
