from tests.channels_app.conftest import chan  # noqa: F401  (clean channel + pool state)
