"""The server's RSA key pair: ``manage.py rsakey generate|ensure|show``.

The private key lives at ``settings.MTPROTO_RSA_KEY_PATH`` (outside the repository,
mode 0600). Clients identify it by its fingerprint and must have the public half built
in: Telethon/Kurigram take the PEM at runtime, Telegram Desktop at compile time
(``--tdesktop`` prints the lines for ``Telegram/SourceFiles/mtproto/mtproto_dc_options.cpp``).
"""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from mtproto.crypto.rsa import RsaKey


def key_path() -> Path:
    return Path(settings.MTPROTO_RSA_KEY_PATH).expanduser()


def write_key(path: Path, key: RsaKey) -> None:
    """Write the private key with 0600 from the first byte on (no world-readable window),
    replacing the file atomically."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(key.private_pem())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def load_key(path: Path | None = None) -> RsaKey:
    path = path or key_path()
    try:
        return RsaKey.load(path)
    except FileNotFoundError:
        raise CommandError(f"no RSA key at {path}; run `manage.py rsakey generate`") from None
    except ValueError as exc:
        raise CommandError(f"{path} is not a usable RSA key: {exc}") from exc


def tdesktop_literal(pem: str) -> str:
    """The PEM as the C string literal Telegram Desktop's DC options source uses."""
    lines = pem.strip().splitlines()
    body = "\n".join(f"{line}\\n\\" for line in lines[:-1]) + "\n" + lines[-1]
    return '"\\\n' + body + '"'


class Command(BaseCommand):
    help = "Manage the server's RSA key: generate, ensure (generate if missing), show."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        gen = sub.add_parser("generate", help="create a new 2048-bit key")
        gen.add_argument("--force", action="store_true", help="replace an existing key")
        sub.add_parser("ensure", help="create a key only if there is none")
        show = sub.add_parser("show", help="print the public key and its fingerprint")
        show.add_argument(
            "--tdesktop", action="store_true", help="print it as Telegram Desktop's source embeds it"
        )

    def handle(self, *args, action, **options):
        path = key_path()
        if action == "generate":
            if path.exists() and not options["force"]:
                raise CommandError(
                    f"{path} exists; pass --force to replace it (clients must then be updated)"
                )
            self._generate(path)
            self._show(load_key(path), tdesktop=False)
        elif action == "ensure":
            if path.exists():
                key = load_key(path)
                self.stdout.write(f"RSA key {path} (fingerprint {key.fingerprint & 2**64 - 1:016x})")
            else:
                self._generate(path)
        else:
            self._show(load_key(path), tdesktop=options["tdesktop"])

    def _generate(self, path: Path) -> None:
        # Finding two 1024-bit primes takes from a fraction of a second to several on a
        # busy machine: say what is happening before the wait.
        self.stdout.write("generating a 2048-bit RSA key ...")
        self.stdout.flush()
        write_key(path, RsaKey.generate())
        self.stdout.write(f"wrote a new RSA key to {path}")

    def _show(self, key: RsaKey, *, tdesktop: bool) -> None:
        pem = key.public_pem().decode()
        unsigned = key.fingerprint & (2**64 - 1)
        if tdesktop:
            literal = tdesktop_literal(pem)
            self.stdout.write("// Telegram/SourceFiles/mtproto/mtproto_dc_options.cpp")
            self.stdout.write(f"const char *kTestPublicRSAKeys[] = {{ {literal} }};")
            self.stdout.write(f"const char *kPublicRSAKeys[] = {{ {literal} }};")
            self.stdout.write(f"// fingerprint {unsigned:016x}")
            return
        self.stdout.write(pem.rstrip("\n"))
        self.stdout.write(f"fingerprint: {unsigned:016x} (signed: {key.fingerprint})")
