"""An offering's student pages (namespace `quizzes`), mounted at /o/<offering>/; URL names equal
view names. Every view takes the offering from the URL (`courseware.roles`)."""

from django.urls import path

from quizzes.views import results, student

app_name = "quizzes"

_part = "attempts/<int:attempt_id>/variants/<int:variant_id>/parts/<slug:part_id>/"

urlpatterns = [
    path("", student.offering_home, name="offering_home"),
    path("quizzes/", student.quiz_list, name="quiz_list"),
    path("quizzes/chapter/<slug:chapter_slug>/", student.chapter_quiz, name="chapter_quiz"),
    path("quizzes/<slug:slug>/", student.quiz_detail, name="quiz_detail"),
    path("quizzes/<slug:slug>/start/", student.start_attempt, name="start_attempt"),
    path("attempts/<int:attempt_id>/", student.attempt_detail, name="attempt_detail"),
    path("attempts/<int:attempt_id>/submit/", student.submit_attempt, name="submit_attempt"),
    path("attempts/<int:attempt_id>/results/", results.attempt_results, name="attempt_results"),
    path("attempts/<int:attempt_id>/grading/", results.attempt_grading, name="attempt_grading"),
    path(_part, student.submit_part, name="submit_part"),
    path(_part + "preview/", student.preview_part, name="preview_part"),
    path(_part + "autosave/", student.autosave, name="autosave"),
    path(
        "attempts/<int:attempt_id>/variants/<int:variant_id>/new/",
        student.new_variant,
        name="new_variant",
    ),
    path("progress/", student.progress, name="progress"),
]
