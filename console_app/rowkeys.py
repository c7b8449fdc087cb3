"""Admin plumbing for rows whose identity is a pair, e.g. ``(channel_id, user_id)``.

The console's models of the channel tables carry a stand-in primary key (see
``console_app.models``). Everything the admin keys by ``pk`` goes through here instead:
change links, action checkboxes and object lookups use ``"<channel_id>.<user_id>"``, and
every lookup filters on both columns, so PostgreSQL reads one partition.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import quote
from django.db.models import Q
from django.urls import reverse
from django.utils.html import format_html

from edge_app.admin_readonly import ReadOnlyAdmin

from .pagination import BoundedListMixin, KeysetChangeList, parse_id

SEPARATOR = "."
# Rows one action may touch: a page of the list, never "all 100,000 members".
MAX_SELECTED = 200


def row_key(obj) -> str:
    return SEPARATOR.join(str(getattr(obj, f)) for f in obj.key_fields)


def parse_key(model, key: str) -> dict[str, int]:
    parts = key.split(SEPARATOR)
    if len(parts) != len(model.key_fields):
        raise ValueError(key)
    return {f: parse_id(p) for f, p in zip(model.key_fields, parts, strict=True)}


def keys_q(model, keys: list[str]) -> Q:
    q = Q(pk__in=[])
    for key in keys:
        q |= Q(**parse_key(model, key))
    return q


class RowKeyChangeList(KeysetChangeList):
    def url_for_result(self, result):
        return reverse(
            f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
            args=(quote(row_key(result)),),
            current_app=self.model_admin.admin_site.name,
        )


class RowKeyAdmin(ReadOnlyAdmin, BoundedListMixin, admin.ModelAdmin):
    """Read-only, bounded admin for a pair-keyed table; state changes happen in actions."""

    changelist_class = RowKeyChangeList

    def get_object(self, request, object_id, from_field=None):
        try:
            lookup = parse_key(self.model, object_id)
        except ValueError:
            return None
        return self.get_queryset(request).filter(**lookup).first()

    def action_checkbox(self, obj):
        attrs = {"class": "action-select", "aria-label": format_html("Select {} for an action", str(obj))}
        checkbox = forms.CheckboxInput(attrs, lambda value: False)
        return checkbox.render(helpers.ACTION_CHECKBOX_NAME, row_key(obj))

    def response_action(self, request, queryset):
        selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        if request.POST.get("select_across") not in (None, "", "0"):
            self.message_user(
                request, "Select rows on this page; actions never run on a whole table.", messages.ERROR
            )
            return None
        if len(selected) > MAX_SELECTED:
            self.message_user(request, f"At most {MAX_SELECTED} rows per action.", messages.ERROR)
            return None
        try:
            narrowed = queryset.filter(keys_q(self.model, selected)) if selected else queryset
        except ValueError:
            self.message_user(request, "Malformed row selection.", messages.ERROR)
            return None
        # The confirmation page of a destructive action posts the real row keys again.
        request.console_row_keys = selected
        # The base class narrows with pk__in=<selected>: give it the stand-in pk values,
        # which are a superset within the key filter applied above.
        post = request.POST.copy()
        pk_field = self.model._meta.pk.attname
        post.setlist(
            helpers.ACTION_CHECKBOX_NAME, [str(parse_key(self.model, k)[pk_field]) for k in selected]
        )
        request.POST = post
        return super().response_action(request, narrowed)
