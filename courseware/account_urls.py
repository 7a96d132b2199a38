"""Account URLs that must win over ``django.contrib.auth.urls``: config/urls.py includes this
module first under ``accounts/``.  No namespace, so ``{% url 'logout' %}`` keeps working.

Password reset by e-mail is off: the site is configured to send no mail, and a reset link is a
way in that the login throttle does not watch. Instructors or the admin set passwords
(``manage.py changepassword``); these addresses say so instead of offering a form. Each
person's time zone is theirs to change (``time-zone/``; the browser reports it on its own).
"""

from django.urls import path

from . import views

urlpatterns = [
    path("logout/", views.logout_page, name="logout"),
    path("password_change/", views.password_change, name="password_change"),
    path("password_reset/", views.password_reset_off, name="password_reset"),
    path("password_reset/done/", views.password_reset_off, name="password_reset_done"),
    path("reset/<uidb64>/<token>/", views.password_reset_off, name="password_reset_confirm"),
    path("reset/done/", views.password_reset_off, name="password_reset_complete"),
    path("time-zone/", views.time_zone, name="time_zone"),
]
