"""A chat folder (dialog filter, ``folder_id >= 2``) as both chat kinds apply it in
their dialog lists: a rule over the dialogs of the main list and the archive, pushed
into each kind's SQL before ``LIMIT`` (design: folder include/exclude/read/archive/type
conditions are pushed down), so a page of a folder is one seek like the main list's.

A dialog belongs to the folder when it is one of the folder's pinned or included
peers, or when it is not excluded and matches a category switch (contacts,
non_contacts, bots for users; groups, broadcasts for channels) and none of the
exclude_muted / exclude_read / exclude_archived switches removes it. The folder's own
pinned peers come first in their listed order (``pin_rank``: the first pinned is the
highest) in place of the main list's pins.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

CHANNEL, PRIVATE = "c", "p"


@dataclass(frozen=True, slots=True)
class FolderRule:
    pinned: tuple[tuple[str, int], ...] = ()
    include: frozenset[tuple[str, int]] = frozenset()
    exclude: frozenset[tuple[str, int]] = frozenset()
    flags: dict = field(default_factory=dict)
    # Whether a peer kind's default notification settings mute it ("users", "chats",
    # "broadcasts"): a dialog without its own mute_until follows its kind.
    muted_by_default: dict = field(default_factory=dict)

    def pin_rank(self, kind: str, peer_id: int) -> int:
        """0 unpinned; else higher for peers pinned earlier in the folder."""
        for i, ref in enumerate(self.pinned):
            if ref == (kind, peer_id):
                return len(self.pinned) - i
        return 0

    def flag(self, name: str) -> bool:
        return bool(self.flags.get(name))

    def sql_params(self, kind: str) -> dict:
        """The parameters of the kind's folder clause: ids always listed (pinned and
        included), ids never listed, the pin ranks as a JSON object, the switches."""
        always = sorted({i for k, i in (*self.pinned, *self.include) if k == kind})
        never = sorted({i for k, i in self.exclude if k == kind} - set(always))
        ranks = {str(i): r for (k, i), r in ((ref, self.pin_rank(*ref)) for ref in self.pinned) if k == kind}
        return {
            "f_always": always,
            "f_never": never,
            "f_ranks": json.dumps(ranks),
            "f_contacts": self.flag("contacts"),
            "f_non_contacts": self.flag("non_contacts"),
            "f_bots": self.flag("bots"),
            "f_groups": self.flag("groups"),
            "f_broadcasts": self.flag("broadcasts"),
            "f_no_muted": self.flag("exclude_muted"),
            "f_no_read": self.flag("exclude_read"),
            "f_no_archived": self.flag("exclude_archived"),
            "f_mute_users": bool(self.muted_by_default.get("users")),
            "f_mute_chats": bool(self.muted_by_default.get("chats")),
            "f_mute_broadcasts": bool(self.muted_by_default.get("broadcasts")),
        }
