"""Site-wide pages of the quizzes app (namespace "site"): where a login lands, and the site
administrator's offerings pages (create, copy, archive, name instructors)."""

from django.urls import path

from quizzes.views import landing, offerings

app_name = "site"

_o = "site/offerings/<slug:slug>/"

urlpatterns = [
    path("welcome/", landing.landing, name="landing"),
    path("site/offerings/", offerings.offering_list, name="offering_list"),
    path("site/offerings/new/", offerings.offering_create, name="offering_create"),
    path(_o, offerings.offering_detail, name="offering_detail"),
    path(_o + "copy/", offerings.offering_copy, name="offering_copy"),
    path(_o + "archive/", offerings.offering_archive, name="offering_archive"),
    path(_o + "staff/", offerings.offering_staff, name="offering_staff"),
    path(_o + "staff/<int:enrollment_id>/remove/", offerings.staff_remove, name="staff_remove"),
]
