"""Setting a password without a shell: through an instructor's one-time link, or by e-mail
(Django's password reset, when the site sends mail).

A link's token is taken out of the address at once (kept in the session, as Django's own reset
does), so it never sits in the browser's history or a Referer header; the form then sets the
password and spends the link. Reset by e-mail is Django's, limited per address and per e-mail
address (`courseware.passwords`), its link always to the site's own address (`SITE_URL`, never
the request's Host), and recorded in the audit trail.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm, SetPasswordForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from courseware import passwords
from courseware.models import AuditAction
from courseware.roster import audit
from courseware.throttling import client_ip

SESSION_TOKEN = "_password_link_token"
LINK_PAGE = "registration/password_link.html"


def _unusable(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, LINK_PAGE, {"refused": message}, status=404)


@never_cache
@require_http_methods(["GET"])
def password_link(request: HttpRequest, token: str) -> HttpResponse:
    """The link itself: checked, then kept in the session and taken out of the address."""
    address = client_ip(request)
    try:
        passwords.usable_link(token, address=address)
    except passwords.LinkRefused as refused:
        return _unusable(request, refused.message)
    request.session[SESSION_TOKEN] = token
    return redirect("password_link_form")


@never_cache
@require_http_methods(["GET", "POST"])
def password_link_form(request: HttpRequest) -> HttpResponse:
    address = client_ip(request)
    token = request.session.get(SESSION_TOKEN, "")
    if not token:
        return _unusable(request, passwords.UNUSABLE)
    try:
        link = passwords.usable_link(token, address=address)
    except passwords.LinkRefused as refused:
        request.session.pop(SESSION_TOKEN, None)
        return _unusable(request, refused.message)
    form = SetPasswordForm(link.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            passwords.set_password_through(
                link=link, password=form.cleaned_data["new_password1"], address=address
            )
        except passwords.LinkRefused as refused:
            return _unusable(request, refused.message)
        request.session.pop(SESSION_TOKEN, None)
        messages.success(request, "Your password is set: log in with it now.")
        return redirect("login")
    return render(request, LINK_PAGE, {"form": form, "account": link.user})


# ---------------------------------------------------------------- reset by e-mail


class LimitedResetForm(PasswordResetForm):
    """Django's reset form, counted against the limits and recorded; the page looks the same
    whether or not the address has an account, so it reveals nothing.

    Django mails only accounts with a usable password. A student added from the roster has none
    until they set one, and resetting by e-mail is how they would, so they are mailed too; an
    account made by an LMS launch (no password, signs in through its LMS) is not."""

    def __init__(self, *args, address=None, **kwargs):
        self.address = address
        super().__init__(*args, **kwargs)

    def get_users(self, email):
        from lti_tool.models import LtiUser

        candidates = get_user_model()._default_manager.filter(email__iexact=email, is_active=True)
        from_lms = set(
            LtiUser.objects.filter(auth_user__in=candidates).values_list("auth_user_id", flat=True)
        )
        for user in candidates:
            if user.email.casefold() != email.casefold():
                continue
            if user.has_usable_password() or user.pk not in from_lms:
                yield user

    def save(self, *args, **kwargs):
        email = self.cleaned_data["email"]
        if not passwords.reset_allowed(email=email, address=self.address):
            return
        users = list(self.get_users(email))
        for user in users:
            audit(
                action=AuditAction.PASSWORD_RESET_MAILED,
                subject=user,
                address=self.address,
                detail="reset e-mail sent",
            )
        super().save(*args, **kwargs)


class ResetView(auth_views.PasswordResetView):
    form_class = LimitedResetForm
    success_url = reverse_lazy("password_reset_done")
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "address": client_ip(self.request)}

    def form_valid(self, form):
        # The reset link names the site's public address, never the Host the request claimed
        # (Django's form reads the domain from the request unless this context replaces it).
        if settings.SITE_URL:
            scheme, _, host = settings.SITE_URL.partition("://")
            self.extra_email_context = {"protocol": scheme, "domain": host}
        return super().form_valid(form)


class ResetConfirmView(auth_views.PasswordResetConfirmView):
    success_url = reverse_lazy("password_reset_complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        audit(
            action=AuditAction.PASSWORD_RESET_DONE,
            actor=self.user,
            subject=self.user,
            address=client_ip(self.request),
        )
        return response


def _by_email(view):
    """The e-mail reset page when the site sends mail; else the page that says who can help."""

    def wrapper(request: HttpRequest, *args, **kwargs):
        if not settings.PASSWORD_RESET_BY_EMAIL:
            return render(request, "registration/password_reset_off.html", status=404)
        return view(request, *args, **kwargs)

    return wrapper


password_reset = _by_email(ResetView.as_view())
password_reset_done = _by_email(
    auth_views.PasswordResetDoneView.as_view(template_name="registration/password_reset_done.html")
)
password_reset_confirm = _by_email(ResetConfirmView.as_view())
password_reset_complete = _by_email(
    auth_views.PasswordResetCompleteView.as_view(
        template_name="registration/password_reset_complete.html"
    )
)
