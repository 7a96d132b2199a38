"""The single-course addresses from before offerings (bookmarks, LMS links, old e-mails): each
redirects into the offering it can only mean (`views.legacy`), never guesses between two."""

from django.urls import re_path

from quizzes.views import legacy

app_name = "legacy"

urlpatterns = [
    re_path(
        r"^(?P<rest>(?:quizzes|attempts|progress|instructor)(?:/.*)?)$",
        legacy.to_offering,
        name="to_offering",
    ),
    re_path(r"^studio/(?P<rest>quizzes(?:/.*)?)$", legacy.to_offering_staff, name="studio_quizzes"),
    re_path(r"^lti/(?P<rest>grades/.*)$", legacy.to_offering_lms, name="lms"),
]
