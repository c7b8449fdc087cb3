"""Destructive console actions ask first, as Django's own "delete selected" does: the
first POST shows what will happen to which rows; only the page's "Yes, I'm sure"
(``post=yes``) runs the action."""

from __future__ import annotations

import functools

from django.contrib.admin import helpers
from django.template.response import TemplateResponse


def confirmed(consequence: str, *, describe=None):
    """Wrap an admin action: ``consequence`` says what will happen; ``describe(obj)``
    names each selected row on the confirmation page."""

    def wrap(action):
        @functools.wraps(action)
        def run(modeladmin, request, queryset):
            if request.POST.get("post") == "yes":
                return action(modeladmin, request, queryset)
            from .rowkeys import MAX_SELECTED

            rows = list(queryset[:MAX_SELECTED])
            opts = modeladmin.model._meta
            context = {
                **modeladmin.admin_site.each_context(request),
                "title": "Are you sure?",
                "opts": opts,
                "action_name": action.__name__,
                "action_description": getattr(run, "short_description", action.__name__),
                "consequence": consequence,
                "objects": [describe(modeladmin, obj) if describe else str(obj) for obj in rows],
                # pair-keyed rows: the "channel.user" keys, not the stand-in pks
                "selected": getattr(request, "console_row_keys", None)
                or request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "back_url": request.get_full_path(),
            }
            return TemplateResponse(request, "console_app/confirm_action.html", context)

        return run

    return wrap
