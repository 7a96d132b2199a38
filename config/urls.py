"""Root URLs: each app owns its own URL module and namespace.

Every page of an offering (student, staff, LMS) lives under /o/<offering>/, so the offering a
page is about is always the one in its address. The book's pages, the studio (the site-wide
bank) and the site administrator's pages are site-wide.
"""

from django.contrib import admin
from django.urls import include, path

offering = "o/<slug:offering>/"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("courseware.account_urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path(offering + "instructor/", include("quizzes.instructor_urls")),
    path(offering + "lms/", include("lti.offering_urls")),
    path(offering, include("quizzes.urls")),
    path("studio/", include("quizzes.studio_urls")),
    path("lti/", include("lti.urls")),
    path("", include("health.urls")),
    path("", include("quizzes.site_urls")),
    path("", include("quizzes.legacy_urls")),
    path("", include("courseware.urls")),
]

handler400 = "courseware.views.bad_request"
handler403 = "courseware.views.permission_denied"
handler404 = "courseware.views.page_not_found"
handler500 = "courseware.views.server_error"
