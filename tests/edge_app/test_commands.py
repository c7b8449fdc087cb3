"""runmtproto refuses to start without the RSA key; serve creates one first."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from mtproto.crypto import RsaKey


def test_runmtproto_without_a_key_fails_clearly(tmp_path):
    missing = tmp_path / "nope.pem"
    with override_settings(MTPROTO_RSA_KEY_PATH=missing), pytest.raises(CommandError) as err:
        call_command("runmtproto", "--port", "0")
    assert str(missing) in str(err.value) and "rsakey" in str(err.value)


def test_serve_ensures_the_key_before_starting(tmp_path, monkeypatch):
    started = []

    class FakeProcess:
        returncode = 0

        def __init__(self, argv, **kwargs):
            started.append(argv)

        def poll(self):
            return 0

        def terminate(self):
            pass

        def wait(self, timeout=None):
            return 0

    monkeypatch.setattr("subprocess.Popen", FakeProcess)
    path = tmp_path / "state" / "server_rsa.pem"
    with override_settings(MTPROTO_RSA_KEY_PATH=path):
        call_command("serve")
    assert RsaKey.load(path).n > 0
    assert any("runmtproto" in argv for argv in started)
    assert any("runbotapi" in argv for argv in started)  # the Bot API beside the listener
