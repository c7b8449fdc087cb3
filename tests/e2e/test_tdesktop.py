"""Telegram Desktop (Debian's telegram-desktop, layer 152) against the real server.

The binary is pointed at the deployment by ``manage.py clientconfig tdesktop --patch``
and runs under Xvfb inside a network namespace of its own with no default route (a veth
pair to 10.141.0.1, where the listener listens: no packet can leave the machine). It is
driven with xdotool at fixed screen positions (the window is centred on a fixed-size
screen). Every step is checked from the server's side (the per-RPC log, the database,
what a Telethon user sees), and a screenshot of each is kept (the directory is printed).
Any METHOD_INVALID or INTERNAL answer to the app fails the test.

Needs root (network namespaces) and `make tdesktop` (telegram-desktop, xvfb, xdotool,
x11-apps, imagemagick, iproute2).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.e2e import harness

pytestmark = pytest.mark.django_db(transaction=True)

BINARY = Path("/usr/bin/telegram-desktop")
NS = "h41-tdesktop"
VETH_HOST, VETH_NS = "h41-td0", "h41-td1"
HOST_ADDR, NS_ADDR = "10.141.0.1", "10.141.0.2"
PORT = 20110
SCREEN = "1280x900x24"
# Where the app's controls are on a 1280x900 screen (its window is centred there).
START_MESSAGING = (639, 569)
PHONE_INSTEAD_OF_QR = (639, 624)
COUNTRY_CODE = (515, 448)
PHONE_NUMBER = (678, 448)
LAST_NAME = (639, 448)
SIGN_UP = (639, 538)
FIRST_CHAT = (369, 205)
FIRST_CHAT_ROW = (222, 192, 518, 256)  # the chat list's first row (left, top, right, bottom)
RPC_LINE = re.compile(r"telesrv\.rpc: (\S+) layer=(\d+) user=(\S+) [\d.]+ms(?: error=(\S+))?")


def _run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=60)


@pytest.fixture(scope="module")
def netns():
    """A namespace whose only link is a veth pair to the host's 10.141.0.1."""
    if os.geteuid() != 0:
        pytest.fail("the Telegram Desktop test needs root (network namespaces)")
    _run("ip", "netns", "del", NS, check=False)
    _run("ip", "link", "del", VETH_HOST, check=False)
    _run("ip", "netns", "add", NS)
    _run("ip", "link", "add", VETH_HOST, "type", "veth", "peer", "name", VETH_NS)
    _run("ip", "link", "set", VETH_NS, "netns", NS)
    _run("ip", "addr", "add", f"{HOST_ADDR}/24", "dev", VETH_HOST)
    _run("ip", "link", "set", VETH_HOST, "up")
    _run("ip", "-n", NS, "addr", "add", f"{NS_ADDR}/24", "dev", VETH_NS)
    _run("ip", "-n", NS, "link", "set", VETH_NS, "up")
    _run("ip", "-n", NS, "link", "set", "lo", "up")
    routes = _run("ip", "-n", NS, "route").stdout
    assert "default" not in routes and "10.141.0.0/24" in routes, routes
    yield NS
    _run("ip", "link", "del", VETH_HOST, check=False)
    _run("ip", "netns", "del", NS, check=False)


@pytest.fixture(scope="module")
def display():
    """Xvfb on a display number it picks itself (-displayfd)."""
    read, write = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", SCREEN, "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()
    yield f":{number}"
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def artefacts():
    path = Path(tempfile.mkdtemp(prefix="tdesktop-e2e-"))
    print(f"\nTelegram Desktop screenshots and logs: {path}", file=sys.stderr)
    return path


class Desktop:
    """The running app, its screen and the server's per-RPC log."""

    def __init__(self, display: str, netns: str, binary: Path, workdir: Path, artefacts: Path, server):
        self.display, self.netns, self.binary, self.workdir = display, netns, binary, workdir
        self.artefacts, self.server = artefacts, server
        self.proc: subprocess.Popen | None = None
        self.shots = 0

    def start(self) -> None:
        env = {**os.environ, "DISPLAY": self.display, "QT_QPA_PLATFORM": "xcb", "HOME": str(self.workdir)}
        log = open(self.artefacts / "app.log", "ab")  # noqa: SIM115 - handed to the child
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", self.netns, str(self.binary), "-workdir", str(self.workdir)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def _x(self, *args: str) -> None:
        subprocess.run(
            ["xdotool", *args], env={**os.environ, "DISPLAY": self.display}, check=True, timeout=30
        )

    async def click(self, at: tuple[int, int], pause: float = 1.0) -> None:
        self._x("mousemove", str(at[0]), str(at[1]), "click", "1")
        await asyncio.sleep(pause)

    async def type(self, text: str, pause: float = 0.5) -> None:
        self._x("type", "--delay", "40", text)
        await asyncio.sleep(pause)

    async def key(self, name: str, pause: float = 0.5) -> None:
        self._x("key", name)
        await asyncio.sleep(pause)

    def shot(self, name: str) -> Path:
        self.shots += 1
        env = {**os.environ, "DISPLAY": self.display}
        xwd = subprocess.run(
            ["xwd", "-root", "-silent"], env=env, capture_output=True, check=True, timeout=30
        ).stdout
        convert = "/usr/bin/convert" if Path("/usr/bin/convert").exists() else "convert"
        path = self.artefacts / f"{self.shots:02d}-{name}.png"
        subprocess.run([convert, "xwd:-", str(path)], input=xwd, check=True, timeout=60)
        return path

    @staticmethod
    def region(path: Path, box: tuple[int, int, int, int]) -> bytes:
        from PIL import Image

        with Image.open(path) as img:
            return img.convert("RGB").crop(box).tobytes()

    async def wait_change(
        self, name: str, box: tuple[int, int, int, int], before: bytes, timeout: float = 30.0
    ):
        """Screenshot until ``box`` differs from ``before`` (something arrived without
        the app being touched); the last screenshot is kept."""
        deadline = time.monotonic() + timeout
        while True:
            path = self.shot(name)
            if self.region(path, box) != before:
                return path
            if time.monotonic() > deadline:
                raise AssertionError(f"{name}: the screen did not change within {timeout:.0f} s ({path})")
            path.unlink()
            await asyncio.sleep(1)

    def rpcs(self, layer: int | None = None) -> list[tuple[str, int, str, str | None]]:
        out = []
        for m in RPC_LINE.finditer(self.server.log()):
            name, lay, user, error = m.group(1), int(m.group(2)), m.group(3), m.group(4)
            if layer is None or lay == layer:
                out.append((name, lay, user, error))
        return out

    async def wait_rpc(self, name: str, since: int = 0, timeout: float = 60.0, user: str | None = None):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for call in self.rpcs()[since:]:
                if call[0] == name and (user is None or call[2] == user):
                    return call
            if self.proc and self.proc.poll() is not None:
                raise AssertionError(f"the app exited ({self.proc.returncode}) waiting for {name}")
            await asyncio.sleep(0.5)
        raise AssertionError(f"the app did not call {name} within {timeout:.0f} s")

    async def wait_window(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        env = {**os.environ, "DISPLAY": self.display}
        while time.monotonic() < deadline:
            found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "Telegram"], env=env,
                                   capture_output=True, text=True)  # fmt: skip
            if found.stdout.strip():
                await asyncio.sleep(3)  # the first frame is painted after the window maps
                return
            await asyncio.sleep(0.5)
        raise AssertionError("the app's window did not appear")


def _photo_bytes() -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (320, 240), (40, 120, 200))
    ImageDraw.Draw(img).rectangle((60, 60, 260, 180), fill=(250, 200, 40))
    buf = io.BytesIO()
    img.save(buf, "JPEG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def tdesktop_server(edge_env, edge_rsa_key, netns, artefacts):
    env = {**edge_env, "TELESRV_MTPROTO_PUBLIC_HOST": HOST_ADDR, "TELESRV_LOG_LEVEL_RPC": "DEBUG"}
    server = harness.start_edge(env, edge_rsa_key, artefacts / "server.log", port=PORT, host=HOST_ADDR)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def pointed_binary(tdesktop_server, artefacts):
    """The copy written by the command an operator runs."""
    out = artefacts / "telegram-desktop"
    env = {**tdesktop_server.env, "TELESRV_MTPROTO_PUBLIC_PORT": str(PORT)}
    proc = subprocess.run(
        [sys.executable, "manage.py", "clientconfig", "tdesktop", "--patch", str(BINARY), "-o", str(out)],
        cwd=harness.ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"-> {HOST_ADDR}" in proc.stdout
    return out


async def test_telegram_desktop_end_to_end(
    tdesktop_server, pointed_binary, display, netns, artefacts, edge_db
):
    from telethon import functions, types

    from accounts_app.models import User

    app = Desktop(display, netns, pointed_binary, artefacts / "workdir", artefacts, tdesktop_server)
    app.workdir.mkdir(exist_ok=True)
    friend = harness.make_telethon(tdesktop_server, "abridged", receive_updates=False)
    await friend.connect()
    try:
        await harness.login_telethon(friend, first_name="Tele")
        phone, code = harness.fresh_phone()

        # 1. Sign-up by phone and code: the code the server sent, read from its log.
        app.start()
        await app.wait_window()
        app.shot("intro")
        await app.click(START_MESSAGING)
        await app.wait_rpc("auth.exportLoginToken")  # the QR screen, with its phone-number link
        await asyncio.sleep(2)
        await app.click(PHONE_INSTEAD_OF_QR, 2)
        await app.click(COUNTRY_CODE)
        await app.key("ctrl+a")
        await app.key("BackSpace")
        await app.type(phone[:3])
        await app.click(PHONE_NUMBER)
        await app.type(phone[3:])
        await app.key("Return")
        await app.wait_rpc("auth.sendCode")
        sent = re.findall(rf"login code for \+{phone}: (\d+)", tdesktop_server.log())
        assert sent == [code], sent
        app.shot("code")
        await app.type(sent[0], 3)
        await app.wait_rpc("auth.signIn")
        await app.type("Desktopia")
        await app.click(LAST_NAME)
        await app.type("Tester")
        await app.click(SIGN_UP, 2)
        await app.wait_rpc("auth.signUp")
        user = await User.objects.aget(phone=phone)
        assert (user.first_name, user.last_name) == ("Desktopia", "Tester")
        await app.wait_rpc("messages.getDialogs", user=str(user.id))
        await asyncio.sleep(3)
        empty_list = app.region(app.shot("signed-up"), FIRST_CHAT_ROW)
        calls = app.rpcs(layer=152)
        assert calls, "the app's calls are not logged at layer 152"

        # 2. A Telethon user's DM arrives live; the app opens it and replies.
        peer = await friend(
            functions.contacts.ImportContactsRequest([types.InputPhoneContact(1, phone, "D", "T")])
        )
        target = peer.users[0]
        mark = len(app.rpcs())
        await friend.send_message(target, "hello from Telethon")
        await app.wait_change("dm-arrived", FIRST_CHAT_ROW, empty_list)  # live: nothing was clicked
        await app.click(FIRST_CHAT, 3)
        await app.wait_rpc("messages.readHistory", since=mark, user=str(user.id))
        await app.type("hi back from Desktop")
        await app.key("Return", 3)
        app.shot("dm-replied")
        got = [m.message for m in await friend.get_messages(target, limit=5)]
        assert "hi back from Desktop" in got and "hello from Telethon" in got

        # 3. A supergroup with a photo: the app shows it (downloads it) and opens the group.
        created = await friend(
            functions.channels.CreateChannelRequest(title="Desk group", about="", megagroup=True)
        )
        group = created.chats[0]
        await friend(functions.channels.InviteToChannelRequest(group, [target]))
        mark = len(app.rpcs())
        photo = artefacts / "photo.jpg"
        photo.write_bytes(_photo_bytes())
        posted = await friend.send_file(group, str(photo), caption="a photo for Desktop")
        assert isinstance(posted.media, types.MessageMediaPhoto)
        await asyncio.sleep(4)
        await app.click(FIRST_CHAT, 4)
        await app.wait_rpc("upload.getFile", since=mark, user=str(user.id))
        await app.wait_rpc("channels.getSponsoredMessages", since=mark, user=str(user.id))
        app.shot("group-photo")

        # 4. A channel post reaches the app as a subscriber.
        created = await friend(
            functions.channels.CreateChannelRequest(title="Desk news", about="", broadcast=True)
        )
        channel = created.chats[0]
        await friend(functions.channels.InviteToChannelRequest(channel, [target]))
        await asyncio.sleep(3)
        before = app.region(app.shot("channel-joined"), FIRST_CHAT_ROW)
        mark = len(app.rpcs())
        await friend.send_message(channel, "a channel post for Desktop")
        await app.wait_change("channel-post-arrived", FIRST_CHAT_ROW, before)
        await app.click(FIRST_CHAT, 4)
        await app.wait_rpc("channels.readHistory", since=mark, user=str(user.id))
        app.shot("channel-post")

        # 5. A restart keeps the session: no login, the dialogs come back.
        app.stop()
        mark = len(app.rpcs())
        app.start()
        await app.wait_window()
        await app.wait_rpc("messages.getDialogs", since=mark, user=str(user.id), timeout=90)
        await asyncio.sleep(4)
        app.shot("restarted")
        assert not [c for c in app.rpcs()[mark:] if c[0].startswith("auth.")]

        # What the app called, and nothing it called answered METHOD_INVALID / INTERNAL.
        calls = app.rpcs(layer=152)
        (artefacts / "calls.txt").write_text(
            "\n".join(sorted({f"{c[0]} {c[3] or 'ok'}" for c in calls})) + "\n"
        )  # fmt: skip
        bad = [c for c in calls if c[3] in ("METHOD_INVALID", "INTERNAL")]
        assert not bad, bad
        assert "no handler for" not in tdesktop_server.log()
    finally:
        app.shot("last")
        app.stop()
        with contextlib.suppress(Exception):
            await friend.disconnect()
        shutil.copy(tdesktop_server.log_path, artefacts / "server-copy.log")
