"""Print what one client family changes to connect to this deployment: ``manage.py
clientconfig <client>`` (edge_app.client_config; docs/clients.md)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from edge_app import client_config
from edge_app.management.commands.rsakey import load_key


class Command(BaseCommand):
    help = "Print the DC list and RSA key in the form a client family takes them."

    def add_arguments(self, parser):
        parser.add_argument("client", choices=client_config.CLIENTS)
        parser.add_argument("--ws-url", default="", help="the public wss:// URL web clients use")

    def handle(self, *args, client, ws_url, **options):
        d = client_config.deployment(load_key(), ws_url)
        self.stdout.write(client_config.render(client, d).rstrip("\n"))
