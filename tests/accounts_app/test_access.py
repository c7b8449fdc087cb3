import pytest

from accounts_app.access import check_input_peer_user, check_input_user, user_access_hash
from tl import types
from tl.errors import PeerIdInvalidError, UserIdInvalidError


def test_access_hash_is_stable_and_per_viewer():
    assert user_access_hash(1, 2) == user_access_hash(1, 2)
    assert user_access_hash(1, 2) != user_access_hash(3, 2)
    assert -(2**63) <= user_access_hash(1, 2) < 2**63


def test_access_hash_depends_on_the_server_secret(settings):
    before = user_access_hash(1, 2)
    from accounts_app import access

    access._secret.cache_clear()
    settings.ACCESS_HASH_SECRET = "another"
    try:
        assert user_access_hash(1, 2) != before
    finally:
        access._secret.cache_clear()


def test_input_user_with_the_viewers_hash_resolves():
    got = check_input_user(10, types.InputUser(user_id=20, access_hash=user_access_hash(10, 20)))
    assert got == 20
    assert check_input_user(10, types.InputUserSelf()) == 10


@pytest.mark.parametrize(
    "bad",
    [
        types.InputUser(user_id=20, access_hash=0),
        # A hash handed to someone else does not work for this viewer.
        types.InputUser(user_id=20, access_hash=user_access_hash(11, 20)),
        types.InputUserEmpty(),
        types.InputUser(user_id=-5, access_hash=0),
    ],
)
def test_input_user_rejected(bad):
    with pytest.raises(UserIdInvalidError):
        check_input_user(10, bad)


def test_input_peer_user():
    assert check_input_peer_user(10, types.InputPeerSelf()) == 10
    ok = types.InputPeerUser(user_id=20, access_hash=user_access_hash(10, 20))
    assert check_input_peer_user(10, ok) == 20
    with pytest.raises(PeerIdInvalidError):
        check_input_peer_user(10, types.InputPeerUser(user_id=20, access_hash=1))
    with pytest.raises(PeerIdInvalidError):
        check_input_peer_user(10, types.InputPeerEmpty())
