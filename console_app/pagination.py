"""Listing the big partitioned tables without scanning them.

Three pieces, used together by the console's ModelAdmins:

- :class:`BoundedPaginator` never runs a full ``count(*)``: it counts at most ``CAP``
  rows (``SELECT count(*) FROM (... LIMIT CAP + 1)``), so page links stop at
  ``CAP / per_page`` and the page reads ``"10000+"``.
- :class:`KeysetChangeList` adds a "next rows" link that continues after the last row
  shown (``?user_id__gt=...``) instead of a deep OFFSET, so any depth costs one index
  range read.
- :class:`PartitionKeyFilter` puts the partition key (``channel_id``) into the query
  as an equality, which is what lets PostgreSQL prune to one HASH partition.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import PAGE_VAR, ChangeList
from django.core.paginator import Paginator
from django.utils.functional import cached_property

# Rows counted at most; beyond it the console pages with keyset links only.
CAP = 10_000
PER_PAGE = 100
# "Show all" must never mean "load the partition".
MAX_SHOW_ALL = 200
# A channel or user id, as typed into a filter box: anything longer is not one.
MAX_ID_DIGITS = 19


class BoundedPaginator(Paginator):
    """A paginator whose ``count`` is ``min(rows, CAP)``; ``truncated`` tells which."""

    cap = CAP

    @cached_property
    def count(self) -> int:
        # Order does not change a count; dropping it spares the sort.
        n = self.object_list.order_by()[: self.cap + 1].count()
        self.truncated = n > self.cap
        return min(n, self.cap)

    truncated = False


def parse_id(raw: str) -> int:
    raw = raw.strip()
    if not raw or len(raw) > MAX_ID_DIGITS + 1 or not raw.lstrip("-").isdigit():
        raise ValueError(raw)
    value = int(raw)
    if not -(2**63) <= value < 2**63:
        raise ValueError(raw)
    return value


class PartitionKeyFilter(admin.ListFilter):
    """A typed-in id filter on the partition key (a select box of every channel would
    itself be an unbounded query)."""

    title = "channel id"
    parameter_name = "channel_id"
    template = "console_app/filter_partition_key.html"

    def __init__(self, request, params, model, model_admin):
        super().__init__(request, params, model, model_admin)
        self.value = None
        if self.parameter_name in params:
            raw = params.pop(self.parameter_name)[-1]
            try:
                self.value = parse_id(raw)
            except ValueError:
                raise IncorrectLookupParameters(f"{self.parameter_name} must be an integer id") from None
            self.used_parameters[self.parameter_name] = raw

    def has_output(self) -> bool:
        return True

    def expected_parameters(self) -> list[str]:
        return [self.parameter_name]

    def queryset(self, request, queryset):
        if self.value is None:
            return queryset
        return queryset.filter(**{self.parameter_name: self.value})

    def choices(self, changelist):
        # The template renders a small GET form; keep every other active parameter.
        keep = {
            k: v
            for k, v in changelist.params.items()
            if k not in (self.parameter_name, PAGE_VAR) and not k.endswith(("__gt", "__lt"))
        }
        yield {
            "parameter_name": self.parameter_name,
            "value": "" if self.value is None else str(self.value),
            "keep": sorted(keep.items()),
            "clear_url": changelist.get_query_string(remove=[self.parameter_name]),
        }


class UserIdFilter(PartitionKeyFilter):
    """The same typed-in filter for a non-partition id column (owner, actor, user)."""

    title = "user id"
    parameter_name = "user_id"


def user_id_filter(column: str, title: str) -> type[PartitionKeyFilter]:
    return type(
        f"{column.title().replace('_', '')}Filter",
        (UserIdFilter,),
        {"parameter_name": column, "title": title},
    )


def channel_id_filter(column: str = "channel_id") -> type[PartitionKeyFilter]:
    if column == "channel_id":
        return PartitionKeyFilter
    return type(f"{column.title().replace('_', '')}Filter", (PartitionKeyFilter,), {"parameter_name": column})


class KeysetChangeList(ChangeList):
    """A ChangeList that offers ``next_rows_url``: the same filters plus
    ``<key>__lt/__gt=<last key shown>`` (and page 1), for admins that define
    ``keyset_field`` and order by it. When ``keyset_requires`` names a filter
    parameter (the partition key), the link is only offered once it is set: across
    channels the key is not unique, so it would skip rows."""

    # ChangeList drops the page parameter ("p") from filter_params itself; never pass it
    # to get_query_string's ``remove``, which matches by prefix (it would drop pts__lt).

    def get_queryset(self, request, exclude_parameters=None):
        qs = super().get_queryset(request, exclude_parameters)
        # Listing (and its bounded count) tolerates seconds of lag: a standby's, when
        # there is one (docs/operations.md). Actions and list edits are POSTs on the primary.
        if request.method in ("GET", "HEAD"):
            qs = qs.using(settings.READ_DATABASE)
        return qs

    def get_results(self, request):
        super().get_results(request)
        self.count_truncated = getattr(self.paginator, "truncated", False)
        self.next_rows_url = self._next_rows_url()

    def _next_rows_url(self) -> str | None:
        field = getattr(self.model_admin, "keyset_field", None)
        if not field:
            return None
        need = getattr(self.model_admin, "keyset_requires", None)
        if need and need not in self.params:
            return None
        rows = list(self.result_list)
        if len(rows) < self.list_per_page:
            return None
        descending = field.startswith("-")
        name = field.lstrip("-")
        op = "lt" if descending else "gt"
        last = getattr(rows[-1], name)
        return self.get_query_string(
            {f"{name}__{op}": last},
            remove=[f"{name}__lt", f"{name}__gt"],
        )


class BoundedListMixin:
    """ModelAdmin settings for a table that must not be counted or sorted at will."""

    paginator = BoundedPaginator
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER
    list_per_page = PER_PAGE
    list_max_show_all = MAX_SHOW_ALL
    # Sorting by an arbitrary column means sorting the whole partition (or table).
    sortable_by = ()
    change_list_template = "console_app/change_list.html"
    changelist_class = KeysetChangeList

    def get_changelist(self, request, **kwargs):
        return self.changelist_class
