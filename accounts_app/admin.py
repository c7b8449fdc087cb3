"""Operator views of accounts: users, their logged-in devices, and login codes."""

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, Exists, OuterRef

from accounts_app import two_step, usernames
from accounts_app.models import Authorization, Contact, LoginCode, TwoStepPassword, User, UserUpdateEvent
from accounts_app.phones import normalize_phone
from tl.errors import RpcError


class UserForm(forms.ModelForm):
    """The same rules clients meet, so an operator's edit cannot break uniqueness."""

    class Meta:
        model = User
        # The login e-mail being verified and its code are the user's business.
        exclude = ("login_email_pending", "login_email_code")

    def clean_phone(self):
        try:
            phone = normalize_phone(self.cleaned_data["phone"])
        except RpcError as exc:
            raise forms.ValidationError("Not a phone number.") from exc
        if User.objects.filter(phone=phone).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError("Another account has this phone number.")
        return phone

    def clean_username(self):
        name = usernames.strip_at(self.cleaned_data.get("username") or "")
        if not name:
            return None
        if not usernames.is_valid_username(name):
            raise forms.ValidationError("5-32 letters, digits or single underscores, starting with a letter.")
        if usernames.is_username_taken(name, except_user_id=self.instance.pk):
            raise forms.ValidationError("This username is taken (by a user or a channel).")
        return name


class SessionInline(admin.TabularInline):
    """The user's logged-in devices (the auth key id is never shown)."""

    model = Authorization
    fields = ("device_model", "app_name", "app_version", "ip", "created", "active", "password_pending")
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False
    verbose_name_plural = "sessions"


@admin.register(User)
class UserAdmin(admin.ModelAdmin):
    form = UserForm
    list_display = (
        "id", "phone", "first_name", "last_name", "username", "sessions", "two_step", "created", "deleted",
    )  # fmt: skip
    list_filter = ("deleted",)
    search_fields = ("=id", "phone", "username", "first_name", "last_name")
    readonly_fields = ("id", "pts", "created", "online_until", "last_seen", "login_email", "two_step")
    ordering = ("-id",)
    list_per_page = 100
    inlines = (SessionInline,)
    actions = ("reset_two_step_password",)

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                session_count=Count("authorizations"),
                has_two_step=Exists(TwoStepPassword.objects.filter(user_id=OuterRef("pk"))),
            )
        )

    @admin.display(description="sessions", ordering="session_count")
    def sessions(self, obj) -> int:
        return obj.session_count

    @admin.display(description="2FA", boolean=True)
    def two_step(self, obj) -> bool:
        # Whether a two-step password is set; the verifier itself is never shown.
        if hasattr(obj, "has_two_step"):
            return obj.has_two_step
        return two_step.has_password(obj.pk)

    # An account-changing action: never for staff who may only look (the console
    # narrows it further to its manage_accounts permission).
    @admin.action(description="Reset the two-step password (the user forgot it)", permissions=["change"])
    def reset_two_step_password(self, request, queryset):
        operator = request.user.get_username()
        done = 0
        for user in queryset[:100]:
            if two_step.do_operator_reset(user.pk, operator):
                self.log_change(request, user, "Removed the two-step verification password")
                done += 1
        self.message_user(request, f"Two-step password removed for {done} user(s).", messages.SUCCESS)


@admin.register(Authorization)
class AuthorizationAdmin(admin.ModelAdmin):
    # The permanent auth key id is a credential-adjacent identifier: never shown.
    list_display = ("id", "user", "device_model", "app_name", "app_version", "ip", "created", "active")
    fields = (
        "user",
        "device_model",
        "platform",
        "system_version",
        "app_name",
        "app_version",
        "api_id",
        "ip",
        "created",
        "active",
    )
    readonly_fields = fields
    search_fields = ("=user__id", "user__phone", "device_model")
    list_select_related = ("user",)
    ordering = ("-active",)
    list_per_page = 100

    def has_add_permission(self, request):
        return False


@admin.register(LoginCode)
class LoginCodeAdmin(admin.ModelAdmin):
    """Where operators read the code a user is waiting for, and how it went out
    (in-app, e-mail, SMS webhook, or only here and in the log)."""

    list_display = (
        "phone",
        "code",
        "via",
        "created",
        "expires",
        "attempts",
        "resends",
        "verified",
        "used",
        "locked_until",
    )
    search_fields = ("phone",)
    readonly_fields = (
        "phone",
        "phone_code_hash",
        "code",
        "via",
        "created",
        "expires",
        "attempts",
        "resends",
        "verified",
        "used",
        "locked_until",
    )
    ordering = ("-created",)
    list_per_page = 100

    def has_add_permission(self, request):
        return False


@admin.register(Contact)
class ContactAdmin(admin.ModelAdmin):
    list_display = ("owner", "user", "first_name", "last_name", "created")
    raw_id_fields = ("owner", "user")
    readonly_fields = ("id", "created")
    search_fields = ("=owner__id", "=user__id")
    list_select_related = ("owner", "user")
    list_per_page = 100


@admin.register(UserUpdateEvent)
class UserUpdateEventAdmin(admin.ModelAdmin):
    list_display = ("user_id", "pts", "pts_count", "type", "date")
    search_fields = ("=user__id",)
    readonly_fields = ("id", "user", "pts", "pts_count", "type", "payload", "date")
    ordering = ("-id",)
    list_per_page = 100

    def has_add_permission(self, request):
        return False
