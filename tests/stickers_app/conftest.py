"""The console fixtures (staff clients, committed tables) for the sticker console tests."""

from tests.channels_app.conftest import chan  # noqa: F401  (clean channel storage per test)
from tests.console_app.conftest import console, moderator_client, operator_client  # noqa: F401
