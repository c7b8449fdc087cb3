"""The RPC errors the channel domain raises, as ``tl.errors`` classes.

``tl.errors`` generates one class per row of ``tl/errors.csv``; a few channel errors
may not be in that table yet, so a missing one is derived here from ``RpcError`` with
the same naming rule (the dispatcher only needs ``code`` and ``message``).
"""

from __future__ import annotations

from tl import errors as _tl

RpcError = _tl.RpcError


def _class_name(message: str) -> str:
    return "".join(part.capitalize() for part in message.split("_")) + "Error"


def _named(message: str, code: int = 400) -> type:
    cls = getattr(_tl, _class_name(message), None)
    if cls is not None:
        return cls

    def __init__(self, *args, **kwargs):
        RpcError.__init__(self, code, message)

    return type(_class_name(message), (RpcError,), {"__init__": __init__})


def _named_x(prefix: str, code: int = 400) -> type:
    """An ``_X`` error (``SLOWMODE_WAIT_X``) taking its number as ``seconds``."""
    cls = getattr(_tl, _class_name(prefix), None)
    if cls is not None:
        return cls

    def __init__(self, seconds: int = 0, value: int | None = None):
        RpcError.__init__(self, code, f"{prefix}_{value if value is not None else seconds}")

    return type(_class_name(prefix), (RpcError,), {"__init__": __init__})


ChannelPrivateError = _named("CHANNEL_PRIVATE")
ChannelInvalidError = _named("CHANNEL_INVALID")
ChannelIdInvalidError = _named("CHANNEL_ID_INVALID")
ChatInvalidError = _named("CHAT_INVALID")
ChatIdInvalidError = _named("CHAT_ID_INVALID")
ChatTitleEmptyError = _named("CHAT_TITLE_EMPTY")
ChatAboutTooLongError = _named("CHAT_ABOUT_TOO_LONG")
ChatAdminRequiredError = _named("CHAT_ADMIN_REQUIRED")
ChatWriteForbiddenError = _named("CHAT_WRITE_FORBIDDEN", 403)
ChatSendPlainForbiddenError = _named("CHAT_SEND_PLAIN_FORBIDDEN", 403)
ChatForwardsRestrictedError = _named("CHAT_FORWARDS_RESTRICTED")
AddressInvalidError = _named("ADDRESS_INVALID")
TtlPeriodInvalidError = _named("TTL_PERIOD_INVALID")
UsersTooFewError = _named("USERS_TOO_FEW")
UsersTooMuchError = _named("USERS_TOO_MUCH")
UserIdInvalidError = _named("USER_ID_INVALID")
UserAlreadyParticipantError = _named("USER_ALREADY_PARTICIPANT")
UserNotParticipantError = _named("USER_NOT_PARTICIPANT")
UserKickedError = _named("USER_KICKED")
UserBannedInChannelError = _named("USER_BANNED_IN_CHANNEL")
UserPrivacyRestrictedError = _named("USER_PRIVACY_RESTRICTED", 403)
ChannelsTooMuchError = _named("CHANNELS_TOO_MUCH")
MessageEmptyError = _named("MESSAGE_EMPTY")
MessageTooLongError = _named("MESSAGE_TOO_LONG")
MessageIdInvalidError = _named("MESSAGE_ID_INVALID")
MessageIdsEmptyError = _named("MESSAGE_IDS_EMPTY")
MessageNotModifiedError = _named("MESSAGE_NOT_MODIFIED")
MessageAuthorRequiredError = _named("MESSAGE_AUTHOR_REQUIRED", 403)
MessageDeleteForbiddenError = _named("MESSAGE_DELETE_FORBIDDEN", 403)
MsgIdInvalidError = _named("MSG_ID_INVALID")
ReplyMessageIdInvalidError = _named("REPLY_MESSAGE_ID_INVALID")
EntitiesTooLongError = _named("ENTITIES_TOO_LONG")
EntityBoundsInvalidError = _named("ENTITY_BOUNDS_INVALID")
RandomIdInvalidError = _named("RANDOM_ID_INVALID")
RandomIdEmptyError = _named("RANDOM_ID_EMPTY")
RandomIdDuplicateError = _named("RANDOM_ID_DUPLICATE", 500)
PersistentTimestampInvalidError = _named("PERSISTENT_TIMESTAMP_INVALID")
LimitInvalidError = _named("LIMIT_INVALID")
OffsetInvalidError = _named("OFFSET_INVALID")
PeerIdInvalidError = _named("PEER_ID_INVALID")
ScheduleDateInvalidError = _named("SCHEDULE_DATE_INVALID")
ParticipantIdInvalidError = _named("PARTICIPANT_ID_INVALID")
InputUserDeactivatedError = _named("INPUT_USER_DEACTIVATED")
FolderIdInvalidError = _named("FOLDER_ID_INVALID")
PinnedDialogsTooMuchError = _named("PINNED_DIALOGS_TOO_MUCH")
SearchQueryEmptyError = _named("SEARCH_QUERY_EMPTY")
SlowmodeWaitError = _named_x("SLOWMODE_WAIT", 420)
QuoteTextInvalidError = _named("QUOTE_TEXT_INVALID")
MediaEmptyError = _named("MEDIA_EMPTY")
PeerFloodError = _named("PEER_FLOOD")
TopicIdInvalidError = _named("TOPIC_ID_INVALID")
TopicClosedError = _named("TOPIC_CLOSED")
TopicDeletedError = _named("TOPIC_DELETED")
TopicNotModifiedError = _named("TOPIC_NOT_MODIFIED")
TopicTitleEmptyError = _named("TOPIC_TITLE_EMPTY")
TopicsEmptyError = _named("TOPICS_EMPTY")
ChannelForumMissingError = _named("CHANNEL_FORUM_MISSING")
PinnedTooMuchError = _named("PINNED_TOO_MUCH")
LinkNotModifiedError = _named("LINK_NOT_MODIFIED")
BroadcastIdInvalidError = _named("BROADCAST_ID_INVALID")
MegagroupIdInvalidError = _named("MEGAGROUP_ID_INVALID")
MegagroupPrehistoryHiddenError = _named("MEGAGROUP_PREHISTORY_HIDDEN")
SendAsPeerInvalidError = _named("SEND_AS_PEER_INVALID")
