"""Create (or bring up to date) the console's two staff groups.

- ``moderator``: view channels, members, messages, invites, join requests, the admin
  log, the user reports queue, folder links and group calls, and run the moderation
  actions (ending a group call among them).
- ``operator``: every permission of the telesrv apps (users, authorizations, login codes,
  auth keys, the update log and pts state page included).

Idempotent: run it after every migration that adds models; the groups' permission sets
are replaced by what is listed here.
"""

from django.apps import apps
from django.contrib.auth.management import create_permissions
from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand

# (app label, codename); a permission that does not exist yet (its model has not
# landed) is skipped and reported.
MODERATOR = (
    ("channels_app", "view_channel"),
    ("console_app", "view_member"),
    ("console_app", "view_message"),
    ("console_app", "view_adminlogevent"),
    ("console_app", "view_invite"),
    ("console_app", "view_importer"),
    ("console_app", "moderate_channels"),
    ("reports_app", "view_report"),
    ("chatlists_app", "view_chatlistinvite"),
    ("calls_app", "view_groupcall"),
    ("calls_app", "view_groupcallparticipant"),
)
OPERATOR_APPS = (
    "accounts_app", "channels_app", "edge_app", "console_app", "reports_app", "stickers_app", "chatlists_app",
    "calls_app",
)  # fmt: skip


class Command(BaseCommand):
    help = "Create the 'moderator' and 'operator' staff groups with their permissions."

    def handle(self, *args, **options):
        # Permissions are created by post_migrate; make sure they exist even when the
        # command runs in the same process as a fresh migrate (tests).
        self.stdout.write("creating missing permissions ...")
        for config in apps.get_app_configs():
            create_permissions(config, verbosity=0)
        moderator = Group.objects.get_or_create(name="moderator")[0]
        wanted = []
        for app_label, codename in MODERATOR:
            perm = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
            if perm is None:
                self.stdout.write(f"skipped {app_label}.{codename} (no such permission yet)")
            else:
                wanted.append(perm)
        moderator.permissions.set(wanted)
        operator = Group.objects.get_or_create(name="operator")[0]
        operator.permissions.set(Permission.objects.filter(content_type__app_label__in=OPERATOR_APPS))
        self.stdout.write(
            f"moderator: {moderator.permissions.count()} permissions; operator: {operator.permissions.count()}"
        )
