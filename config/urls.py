"""Root URLs: each app owns its own URL module and namespace."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("courseware.account_urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("instructor/", include("quizzes.instructor_urls")),
    path("studio/", include("quizzes.studio_urls")),
    path("lti/", include("lti.urls")),
    path("", include("health.urls")),
    path("", include("quizzes.urls")),
    path("", include("courseware.urls")),
]

handler400 = "courseware.views.bad_request"
handler403 = "courseware.views.permission_denied"
handler404 = "courseware.views.page_not_found"
handler500 = "courseware.views.server_error"
