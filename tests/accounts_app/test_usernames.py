import pytest

from accounts_app import actions, usernames
from tl.errors import UsernameInvalidError, UsernameNotModifiedError, UsernameOccupiedError


@pytest.mark.parametrize("name", ["alice", "Alice_99", "a1234", "a" * 32, "ab_cd_ef"])
def test_valid_usernames(name):
    assert usernames.is_valid_username(name)


@pytest.mark.parametrize(
    "name",
    ["abcd", "a" * 33, "1alice", "_alice", "alice_", "al__ice", "ali ce", "alicé", "ali-ce", ""],
)
def test_invalid_usernames(name):
    assert not usernames.is_valid_username(name)
    with pytest.raises(UsernameInvalidError):
        usernames.check_username_format(name)


def test_taken_case_insensitively(alice):
    assert usernames.is_username_taken("ALICE_A")
    assert not usernames.is_username_taken("ALICE_A", except_user_id=alice.id)
    assert not usernames.is_username_taken("alice_b")


def test_other_owner_kinds_share_the_namespace(db):
    taken = {"somechannel"}
    lookup = usernames.register_username_owner(lambda key: key in taken)
    try:
        assert usernames.is_username_taken("SomeChannel")
        user = actions.do_create_user("15550000009", "Carol")
        with pytest.raises(UsernameOccupiedError):
            actions.do_update_username(user.id, "someChannel")
    finally:
        usernames._owner_lookups.remove(lookup)


def test_update_username(alice, bob):
    with pytest.raises(UsernameOccupiedError):
        actions.do_update_username(bob.id, "Alice_A")
    with pytest.raises(UsernameInvalidError):
        actions.do_update_username(bob.id, "b_")
    with pytest.raises(UsernameNotModifiedError):
        actions.do_update_username(bob.id, "bobby")
    change = actions.do_update_username(bob.id, "@Bob_Two")
    assert change.user.username == "Bob_Two"
    assert [e.type for e in change.events] == [actions.USER_NAME_UPDATE]
    assert change.events[0].payload["username"] == "Bob_Two"
    # The old name is free again; removing works with "".
    assert actions.check_username_available(alice.id, "bobby")
    assert actions.do_update_username(bob.id, "").user.username is None


def test_check_username(alice, bob):
    assert actions.check_username_available(alice.id, "alice_a")  # one's own name
    assert not actions.check_username_available(bob.id, "ALICE_A")
    with pytest.raises(UsernameInvalidError):
        actions.check_username_available(bob.id, "x")


def test_create_user_with_taken_username(alice):
    with pytest.raises(UsernameOccupiedError):
        actions.do_create_user("15550000003", "Eve", username="alice_A")
