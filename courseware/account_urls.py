"""Account URLs that must win over ``django.contrib.auth.urls``: config/urls.py includes this
module first under ``accounts/``.  No namespace, so ``{% url 'logout' %}`` keeps working.

Passwords without a shell: an instructor's one-time set-password link (``set-password/``), and
password reset by e-mail when the site sends mail (``PASSWORD_RESET_BY_EMAIL``); otherwise the
reset addresses say to ask the instructor for a link. Each person's time zone is theirs to
change (``time-zone/``; the browser reports it on its own).
"""

from django.urls import path

from . import views
from .views import passwords

urlpatterns = [
    path("logout/", views.logout_page, name="logout"),
    path("password_change/", views.password_change, name="password_change"),
    path("password_reset/", passwords.password_reset, name="password_reset"),
    path("password_reset/done/", passwords.password_reset_done, name="password_reset_done"),
    path(
        "reset/<uidb64>/<token>/",
        passwords.password_reset_confirm,
        name="password_reset_confirm",
    ),
    path("reset/done/", passwords.password_reset_complete, name="password_reset_complete"),
    path("set-password/", passwords.password_link_form, name="password_link_form"),
    path("set-password/<str:token>/", passwords.password_link, name="password_link"),
    path("time-zone/", views.time_zone, name="time_zone"),
]
