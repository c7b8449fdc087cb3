"""Telegram's errors of the chatlists.* methods that tl/errors.csv does not list."""

from tl.errors import RpcError


class _BadRequest(RpcError):
    code = 400
    message = ""

    def __init__(self) -> None:
        super().__init__(400, self.message)


class ChatlistsTooMuchError(_BadRequest):
    message = "CHATLISTS_TOO_MUCH"  # chatlists_joined_limit_*: shared folders a user keeps


class InvitesTooMuchError(_BadRequest):
    message = "INVITES_TOO_MUCH"  # chatlist_invites_limit_*: links of one folder


class InvitePeersTooMuchError(_BadRequest):
    message = "INVITE_PEERS_TOO_MUCH"


class InviteSlugEmptyError(_BadRequest):
    message = "INVITE_SLUG_EMPTY"


class InviteSlugExpiredError(_BadRequest):
    message = "INVITE_SLUG_EXPIRED"  # unknown, deleted or revoked


class FilterNotSupportedError(_BadRequest):
    message = "FILTER_NOT_SUPPORTED"  # a folder of chat kinds, or one joined from someone else


class ChatlistExcludeInvalidError(_BadRequest):
    message = "CHATLIST_EXCLUDE_INVALID"  # a shared folder has no excluded chats


class PeersListEmptyError(_BadRequest):
    message = "PEERS_LIST_EMPTY"
