import pytest

from accounts_app.actions import do_create_user
from tests.console_app.conftest import console, moderator_client  # noqa: F401 - the console's fixtures


@pytest.fixture
def people(console):  # noqa: F811 - the fixture imported above
    """Owner, joiner and a stranger: real accounts (folders log to their update logs)."""
    return tuple(do_create_user(f"999661950{i}", name).id for i, name in enumerate(("Olga", "Jon", "Sam")))
