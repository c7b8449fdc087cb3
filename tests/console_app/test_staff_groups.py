from django.contrib.auth.models import Group
from django.core.management import call_command


def perms(name):
    return {
        f"{p.content_type.app_label}.{p.codename}" for p in Group.objects.get(name=name).permissions.all()
    }


def test_groups_have_the_documented_permissions(console):
    moderator, operator = perms("moderator"), perms("operator")
    assert {
        "channels_app.view_channel",
        "console_app.view_member",
        "console_app.view_message",
        "console_app.view_invite",
        "console_app.view_importer",
        "console_app.view_adminlogevent",
        "console_app.moderate_channels",
        "reports_app.view_report",
        "chatlists_app.view_chatlistinvite",
        "calls_app.view_groupcall",
        "calls_app.view_groupcallparticipant",
    } == moderator
    assert moderator < operator
    for p in (
        "accounts_app.view_user",
        "accounts_app.view_authorization",
        "accounts_app.view_logincode",
        "edge_app.view_authkeyrecord",
        "console_app.view_updateevent",
        "console_app.view_pts_state",
        "console_app.terminate_authorizations",
        "console_app.manage_accounts",
    ):
        assert p in operator


def test_running_twice_changes_nothing(console):
    before = perms("moderator"), perms("operator")
    call_command("create_staff_groups", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert (perms("moderator"), perms("operator")) == before
    assert Group.objects.filter(name__in=["moderator", "operator"]).count() == 2
