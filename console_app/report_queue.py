"""The queue of users' reports: what was reported, by whom, the reported messages in
their context (the messages around them in the channel), and the moderator's answer:
delete the messages, ban the sender, or dismiss. Every answer goes through the same
domain actions as the other console actions (so clients are told and the channel's
admin log records it) and is written on the report and in the console's history."""

from __future__ import annotations

import datetime as dt

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from channels_app.models import Channel
from edge_app.admin_readonly import ReadOnlyAdmin
from reports_app.actions import do_close_report
from reports_app.models import Report

from . import moderation, people
from .confirm import confirmed
from .media import media_html, media_mark
from .models import Message
from .pagination import BoundedListMixin, user_id_filter
from .service_text import action_user_ids, service_text

MODERATE = "moderate_channels"
CONTEXT = 5  # messages shown before and after each reported one
REPORTED_SHOWN = 20  # reported messages shown with context on a report's page

REASON_LABELS = {
    "spam": "spam",
    "violence": "violence",
    "pornography": "pornography",
    "child_abuse": "child abuse",
    "copyright": "copyright",
    "geo_irrelevant": "unrelated location",
    "fake": "fake account",
    "illegal_drugs": "illegal drugs",
    "personal_details": "personal details",
    "other": "other",
    "reaction": "a reaction",
}
SOURCE_LABELS = {
    "messages.report": "reported messages",
    "messages.reportSpam": "reported the chat as spam",
    "account.reportPeer": "reported the chat / profile",
    "account.reportProfilePhoto": "reported a profile photo",
    "channels.reportSpam": "reported a member's messages as spam",
    "messages.reportReaction": "reported a reaction",
}


def _time(value: int) -> str:
    if not value:
        return "-"
    return dt.datetime.fromtimestamp(value, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


class StatusFilter(admin.SimpleListFilter):
    """Open reports unless another state is picked: the queue is what is left to do."""

    title = "state"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return (
            ("open", "open (the queue)"),
            ("resolved", "resolved"),
            ("dismissed", "dismissed"),
            ("all", "all"),
        )

    def choices(self, changelist):
        value = self.value() or "open"
        for lookup, title in self.lookup_choices:
            yield {
                "selected": value == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request, queryset):
        value = self.value() or "open"
        if value == "all":
            return queryset
        if value in ("open", "resolved", "dismissed"):
            return queryset.filter(status=value)
        return queryset


class ReasonFilter(admin.SimpleListFilter):
    title = "reason"
    parameter_name = "reason"

    def lookups(self, request, model_admin):
        return tuple(REASON_LABELS.items())

    def queryset(self, request, queryset):
        if self.value() in REASON_LABELS:
            return queryset.filter(reason=self.value())
        return queryset


class ReportAdmin(ReadOnlyAdmin, BoundedListMixin, admin.ModelAdmin):
    list_display = ("id", "date_shown", "reporter", "where", "what", "reason_shown", "reported", "state")
    list_display_links = ("id", "what")
    list_filter = (StatusFilter, ReasonFilter, user_id_filter("reporter_id", "reporter (user id)"))
    ordering = ("id",)  # the oldest open report first
    keyset_field = "id"
    actions = ("delete_reported_messages", "ban_reported_senders", "dismiss_reports")
    fields = (
        "id",
        "date_shown",
        "reporter",
        "where",
        "what",
        "reason_label",
        "comment",
        "reported_in_context",
        "state",
    )
    readonly_fields = fields
    change_form_template = "console_app/report_change_form.html"

    # --- who and where ---------------------------------------------------------------

    def _annotate(self, rows, staff) -> None:
        rows = list(rows)
        ids = {r.reporter_id for r in rows} | {r.subject_user_id for r in rows}
        ids |= {r.peer_id for r in rows if r.peer_kind == "user"}
        known = people.people(ids)
        link = people.may_open_users(staff)
        channel_ids = {r.peer_id for r in rows if r.peer_kind == "channel"}
        titles = dict(Channel.objects.filter(id__in=channel_ids).values_list("id", "title"))
        for r in rows:
            r._known, r._link, r._titles = known, link, titles

    def get_changelist_instance(self, request):
        cl = super().get_changelist_instance(request)
        self._annotate(cl.result_list, request.user)
        return cl

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None:
            self._annotate([obj], request.user)
            obj._staff = request.user
        return obj

    def _person(self, obj, user_id: int) -> str:
        known = getattr(obj, "_known", None)
        if known is None:
            self._annotate([obj], None)
            known = obj._known
        return people.person_html(user_id, known, getattr(obj, "_link", False))

    @admin.display(description="date")
    def date_shown(self, obj: Report) -> str:
        return _time(obj.date)

    @admin.display(description="reported by")
    def reporter(self, obj: Report) -> str:
        return self._person(obj, obj.reporter_id)

    @admin.display(description="where")
    def where(self, obj: Report) -> str:
        if obj.peer_kind == "channel":
            title = (getattr(obj, "_titles", None) or {}).get(obj.peer_id, "(deleted channel)")
            url = reverse("admin:channels_app_channel_change", args=[obj.peer_id])
            return format_html('<a href="{}">{}</a> <small>({})</small>', url, title, obj.peer_id)
        return format_html("private chat with {}", self._person(obj, obj.peer_id))

    @admin.display(description="what")
    def what(self, obj: Report) -> str:
        text = SOURCE_LABELS.get(obj.source, obj.source)
        if obj.subject_user_id and obj.subject_user_id != obj.peer_id:
            return format_html("{}: {}", text, self._person(obj, obj.subject_user_id))
        return text

    @admin.display(description="reason")
    def reason_shown(self, obj: Report) -> str:
        label = REASON_LABELS.get(obj.reason, obj.reason)
        return f"{label}: {obj.comment[:80]}" if obj.comment else label

    @admin.display(description="reason")
    def reason_label(self, obj: Report) -> str:
        return REASON_LABELS.get(obj.reason, obj.reason)

    @admin.display(description="messages")
    def reported(self, obj: Report) -> str:
        if not obj.message_ids:
            return "-"
        if obj.peer_kind != "channel":
            boxes = _private_boxes(obj, obj.message_ids[:3])
            shown = [
                f"{b.box_id}: {(media_mark(b.message.media) + ' ' + b.message.message).strip()[:60]}"
                for b in boxes
            ]
            more = len(obj.message_ids) - len(boxes)
            return "; ".join(shown) + (f" (+{more})" if more > 0 else "") if shown else "-"
        rows = list(Message.objects.filter(channel_id=obj.peer_id, id__in=obj.message_ids[:3]).order_by("id"))
        shown = [f"{m.id}: {(media_mark(m.media) + ' ' + m.message).strip()[:60]}" for m in rows]
        more = len(obj.message_ids) - len(rows)
        return "; ".join(shown) + (f" (+{more})" if more > 0 else "")

    @admin.display(description="state")
    def state(self, obj: Report) -> str:
        if obj.status == Report.STATUS_OPEN:
            return "open"
        return f"{obj.status} by {obj.handled_by} at {_time(obj.handled_at)}: {obj.outcome}"

    @admin.display(description="the reported messages in context")
    def reported_in_context(self, obj: Report) -> str:
        if not obj.message_ids:
            return "-"
        if obj.peer_kind == "user":
            return self._private_context(obj)
        wanted = set(obj.message_ids[:REPORTED_SHOWN])
        ids: set[int] = set()
        for mid in wanted:
            ids.update(range(max(1, mid - CONTEXT), mid + CONTEXT + 1))
        rows = list(Message.objects.filter(channel_id=obj.peer_id, id__in=sorted(ids)).order_by("id"))
        people.annotate(rows, ("sender_user_id",), getattr(obj, "_staff", None) or _Nobody(), _action_ids)
        broadcast = Channel.objects.filter(id=obj.peer_id, broadcast=True).exists()
        lines = []
        for m in rows:
            if m.action:
                body = format_html(
                    "<i>{}</i>",
                    service_text(m.action, m.sender_user_id, people.display_names(m), broadcast=broadcast),
                )
            elif m.deleted:
                body = format_html("<del>{}</del> (deleted)", m.message)
            else:
                body = format_html("{} {}", m.message, media_html(m.media) if m.media else "")
            lines.append(
                (
                    "console-reported" if m.id in wanted else "",
                    m.id,
                    people.shown(m, "sender_user_id", zero="the channel / operator"),
                    _time(m.date),
                    "reported" if m.id in wanted else "",
                    body,
                )
            )
        if not lines:
            return "The reported messages are gone."
        return _context_table(lines)

    def _private_context(self, obj: Report) -> str:
        """The private chat around the reported messages, as the reporter's own box has
        it (the reporter chose to show these; nothing else of the chat is read)."""
        wanted = set(obj.message_ids[:REPORTED_SHOWN])
        ids: set[int] = set()
        for mid in wanted:
            ids.update(range(max(1, mid - CONTEXT), mid + CONTEXT + 1))
        boxes = _private_boxes(obj, sorted(ids))
        known = people.people({obj.reporter_id, obj.peer_id})
        link = getattr(obj, "_link", False)
        lines = []
        for b in boxes:
            m = b.message
            sender = obj.reporter_id if b.out else obj.peer_id
            body = (
                format_html("<del>{}</del> (deleted)", m.message)
                if b.deleted
                else format_html("{} {}", m.message, media_html(m.media) if m.media else "")
            )
            lines.append(
                (
                    "console-reported" if b.box_id in wanted else "",
                    b.box_id,
                    people.person_html(sender, known, link),
                    _time(m.date),
                    "reported" if b.box_id in wanted else "",
                    body,
                )
            )
        if not lines:
            return "The reported messages are gone."
        return _context_table(lines)

    # --- permissions ------------------------------------------------------------------

    def has_moderate_channels_permission(self, request) -> bool:
        return request.user.has_perm(f"console_app.{MODERATE}")

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra = {
            **(extra_context or {}),
            "can_moderate": self.has_moderate_channels_permission(request),
            "changelist_url": reverse("admin:reports_app_report_changelist"),
        }
        return super().change_view(request, object_id, form_url, extra)

    # --- the moderator's answers --------------------------------------------------------

    def _close(self, request, report: Report, outcome: str, *, dismissed: bool = False) -> None:
        who = request.user.get_username()
        if do_close_report(report.id, who, outcome, dismissed=dismissed):
            self.log_change(
                request, report, f"{'dismissed' if dismissed else 'resolved'}: {outcome} (by {who})"
            )
            if report.peer_kind == "channel":
                channel = Channel.objects.filter(id=report.peer_id).first()
                if channel is not None:
                    self.log_change(request, channel, f"report {report.id}: {outcome} (by {who})")

    def _run(self, request, what: str, call, *args) -> bool:
        try:
            call(*args)
        except moderation.NotAvailable as e:
            self.message_user(request, f"{what}: not available yet ({e.dotted}).", messages.WARNING)
            return False
        except Exception as e:  # an RpcError of the domain: shown as the client would see it
            message = getattr(e, "message", None)
            if message is None:
                raise
            self.message_user(request, f"{what}: refused by the domain: {message}", messages.ERROR)
            return False
        return True

    @admin.action(
        description="Delete the reported messages for everyone (resolves the report)", permissions=[MODERATE]
    )
    @confirmed(
        "The reported messages are deleted for every member of the channel (they disappear from "
        "everyone's devices) and the report is marked resolved. This cannot be undone.",
        describe=lambda admin_, r: _describe_messages(r),
    )
    def delete_reported_messages(self, request, queryset):
        done = 0
        for report in queryset.filter(status=Report.STATUS_OPEN)[:200]:
            if report.peer_kind != "channel" or not report.message_ids:
                self.message_user(
                    request, f"report {report.id}: no channel messages to delete", messages.WARNING
                )
                continue
            ids = list(report.message_ids)
            if self._run(request, f"report {report.id}", moderation.delete_messages, report.peer_id, ids):
                self._close(request, report, f"deleted messages {', '.join(map(str, ids))}")
                done += 1
        if done:
            self.message_user(request, f"Deleted the messages of {done} report(s).", messages.SUCCESS)

    @admin.action(
        description="Ban the reported sender from the channel (resolves the report)", permissions=[MODERATE]
    )
    @confirmed(
        "The member the report is about (the sender of the reported messages) is removed from the "
        "channel and cannot rejoin; the report is marked resolved.",
        describe=lambda admin_, r: (
            f"report {r.id}: {', '.join(people.plain(u) for u in _offenders(r)) or 'nobody to ban'}"
        ),
    )
    def ban_reported_senders(self, request, queryset):
        done = 0
        for report in queryset.filter(status=Report.STATUS_OPEN)[:200]:
            offenders = _offenders(report)
            if report.peer_kind != "channel" or not offenders:
                self.message_user(
                    request, f"report {report.id}: nobody in a channel to ban", messages.WARNING
                )
                continue
            banned = [
                uid
                for uid in offenders
                if self._run(request, f"report {report.id}", moderation.ban_member, report.peer_id, uid)
            ]
            if banned:
                self._close(request, report, "banned " + ", ".join(people.plain(u) for u in banned))
                done += 1
        if done:
            self.message_user(request, f"Banned the senders of {done} report(s).", messages.SUCCESS)

    @admin.action(description="Dismiss the selected reports (nothing wrong)", permissions=[MODERATE])
    def dismiss_reports(self, request, queryset):
        done = 0
        for report in queryset.filter(status=Report.STATUS_OPEN)[:200]:
            self._close(request, report, "dismissed, nothing done", dismissed=True)
            done += 1
        self.message_user(request, f"Dismissed {done} report(s).", messages.SUCCESS)


def _context_table(lines) -> str:
    body = format_html_join(
        "",
        '<tr class="{}"><td>{}</td><td>{}</td><td>{}</td><td><b>{}</b></td><td>{}</td></tr>',
        lines,
    )
    return format_html(
        '<table class="console-report-context"><thead><tr><th>id</th><th>sender</th><th>date</th>'
        "<th></th><th>message</th></tr></thead><tbody>{}</tbody></table>",
        body,
    )


def _private_boxes(report: Report, box_ids) -> list:
    """The reporter's own copies of messages of the reported private chat."""
    from private_app.models import MessageBox

    return list(
        MessageBox.objects.filter(
            owner_id=report.reporter_id, peer_id=report.peer_id, box_id__in=list(box_ids)
        )
        .select_related("message")
        .order_by("box_id")
    )


class _Nobody:
    def has_perm(self, perm) -> bool:
        return False


def _action_ids(m) -> set[int]:
    return action_user_ids(m.action)


def _describe_messages(report: Report) -> str:
    """ "report 3 in «Garden club»: Bob @bob (2): «buy cheap pills»" for the confirmation
    page."""
    title = Channel.objects.filter(id=report.peer_id).values_list("title", flat=True).first() or "(deleted)"
    rows = list(
        Message.objects.filter(channel_id=report.peer_id, id__in=report.message_ids[:20]).order_by("id")
    )
    known = people.people(m.sender_user_id for m in rows)
    said = "; ".join(
        f"{people.plain(m.sender_user_id, known)}: «{(media_mark(m.media) + ' ' + m.message).strip()[:80]}»"
        for m in rows
    )
    return f"report {report.id} in «{title}»: {said or 'the messages are gone'}"


def _offenders(report: Report) -> list[int]:
    """Who a ban would hit: the named member, else the senders of the reported messages."""
    if report.peer_kind != "channel":
        return []
    if report.subject_user_id:
        return [report.subject_user_id]
    senders = (
        Message.objects.filter(channel_id=report.peer_id, id__in=report.message_ids[:100])
        .exclude(sender_user_id=0)
        .values_list("sender_user_id", flat=True)
    )
    return sorted(set(senders))[:20]


admin.site.register(Report, ReportAdmin)
