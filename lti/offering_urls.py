"""An offering's LMS pages, mounted at /o/<offering>/lms/ (namespace "lms"): grade passback
per student and the roster of the LMS courses linked to this offering."""

from django.urls import path

from lti import instructor

app_name = "lms"

urlpatterns = [
    path("grades/", instructor.grades, name="grades"),
    path("grades/<int:sync_id>/resend/", instructor.resend, name="resend"),
    path("roster/", instructor.sync_roster, name="sync_roster"),
]
