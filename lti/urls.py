"""The tool's stable LTI endpoints (documented in docs/lti.md)."""

from django.urls import path

from lti import deep_linking, instructor, views

app_name = "lti"

urlpatterns = [
    path("login/", views.login, name="login"),
    path("launch/", views.launch, name="launch"),
    path("jwks/", views.jwks, name="jwks"),
    path("deep-link/", deep_linking.deep_link, name="deep_link"),
    path("grades/", instructor.grades, name="grades"),
    path("grades/<int:sync_id>/resend/", instructor.resend, name="resend"),
    path("roster/", instructor.sync_roster, name="sync_roster"),
    path("configuration/", views.configuration, name="configuration"),
]
