"""The tool's stable LTI endpoints (documented in docs/lti.md). An offering's LMS pages
(grades, roster) are in `offering_urls`."""

from django.urls import path

from lti import deep_linking, views

app_name = "lti"

urlpatterns = [
    path("login/", views.login, name="login"),
    path("launch/", views.launch, name="launch"),
    path("jwks/", views.jwks, name="jwks"),
    path("deep-link/", deep_linking.deep_link, name="deep_link"),
    path("configuration/", views.configuration, name="configuration"),
]
