"""``manage.py createbot OWNER_ID NAME USERNAME``: make a bot for a user and print its
token (the token is stored hashed: this is the only time it is shown).
``--revoke BOT_ID`` prints a fresh token for an existing bot instead; ``--delete BOT_ID``
deletes a bot."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from bots_app import actions
from edge_app import registry
from tl.errors import RpcError


class Command(BaseCommand):
    help = "Create a bot (or revoke its token / delete it) and print the token"

    def add_arguments(self, parser):
        parser.add_argument("owner_id", nargs="?", type=int)
        parser.add_argument("name", nargs="?")
        parser.add_argument("username", nargs="?")
        parser.add_argument("--revoke", type=int, metavar="BOT_ID")
        parser.add_argument("--delete", type=int, metavar="BOT_ID")

    def handle(self, *args, **opts):
        try:
            if opts["revoke"]:
                revoked = actions.do_revoke_token(None, opts["revoke"])
                self._forget(revoked.logged_out)
                self.stdout.write(revoked.token)
                return
            if opts["delete"]:
                self._forget(actions.do_delete_bot(None, opts["delete"]))
                self.stdout.write(f"bot {opts['delete']} deleted")
                return
            if not (opts["owner_id"] and opts["name"] and opts["username"]):
                raise CommandError("give OWNER_ID NAME USERNAME, or --revoke / --delete BOT_ID")
            created = actions.do_create_bot(opts["owner_id"], opts["name"], opts["username"])
        except RpcError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(created.token)

    def _forget(self, key_ids: list[int]) -> None:
        # Live sessions of the bot are on the listeners: tell them over the push channel.
        for key_id in key_ids:
            registry.forget_authorization(key_id)
