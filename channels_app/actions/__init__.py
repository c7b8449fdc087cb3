"""Channel domain actions: plain async Python raising ``tl.errors`` classes; what the
RPC handlers, the admin and the tests call."""

from .channels import (
    do_create_channel,
    do_invite_to_channel,
    do_join_channel,
    do_leave_channel,
    get_channel_for_viewer,
    get_channels,
    get_full_channel,
    get_participant,
    get_participants,
)
from .dialogs import (
    do_mark_dialog_unread,
    do_set_dialog_folder,
    get_dialogs,
    get_peer_dialogs,
    get_pinned_dialogs,
    get_unread_marks,
)
from .difference import get_channel_difference
from .messages import (
    do_delete_history,
    do_delete_messages,
    do_edit_message,
    do_forward_to_channel,
    do_read_history,
    do_send_message,
    get_existing_messages,
    get_forwardable,
    get_history,
    get_messages,
    get_thread_root,
)
from .settings import pinned_message_ids

__all__ = [
    "do_create_channel",
    "do_delete_history",
    "do_delete_messages",
    "do_edit_message",
    "do_forward_to_channel",
    "do_invite_to_channel",
    "do_join_channel",
    "do_leave_channel",
    "do_mark_dialog_unread",
    "do_read_history",
    "do_send_message",
    "do_set_dialog_folder",
    "get_channel_difference",
    "get_channel_for_viewer",
    "get_channels",
    "get_dialogs",
    "get_existing_messages",
    "get_forwardable",
    "get_full_channel",
    "get_history",
    "get_messages",
    "get_participant",
    "get_participants",
    "get_peer_dialogs",
    "get_pinned_dialogs",
    "get_thread_root",
    "get_unread_marks",
    "pinned_message_ids",
]
