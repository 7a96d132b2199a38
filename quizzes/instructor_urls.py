"""An offering's staff pages, mounted at /o/<offering>/instructor/ (namespace "instructor"):
URL name = view name. Instructors and teaching assistants read and grade; the quiz pages,
applying a regrade and the roster are the instructors' alone (each view's decorator says)."""

from django.urls import path

from quizzes.views import grading, quiz_items, quiz_pools, quiz_settings, roster
from quizzes.views import instructor as views
from quizzes.views import instructor_exports as exports
from quizzes.views import instructor_regrade as regrade
from quizzes.views import instructor_terms as terms

app_name = "instructor"

_quiz = "quizzes/<slug:slug>/"

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("gradebook/", views.gradebook, name="gradebook"),
    path("students/<int:user_id>/", views.student_detail, name="student_detail"),
    path("students/<int:user_id>/extension/", views.grant_extension, name="grant_extension"),
    path("attempts/<int:attempt_id>/override/", views.override_score, name="override_score"),
    path("extensions/", terms.extensions, name="extensions"),
    path("extensions/group/", terms.grant_group_extension, name="grant_group_extension"),
    path("extensions/accommodation/", terms.grant_accommodation, name="grant_accommodation"),
    path(
        "extensions/student/<int:extension_id>/remove/",
        terms.remove_student_extension,
        name="remove_student_extension",
    ),
    path(
        "extensions/group/<int:group_extension_id>/remove/",
        terms.remove_group_extension,
        name="remove_group_extension",
    ),
    path(
        "extensions/accommodation/<int:accommodation_id>/remove/",
        terms.remove_accommodation,
        name="remove_accommodation",
    ),
    path("export/extensions.csv", terms.export_extensions_csv, name="export_extensions_csv"),
    path("roster/", roster.roster_page, name="roster"),
    path("roster/add/", roster.roster_add, name="roster_add"),
    path("roster/upload/", roster.roster_upload, name="roster_upload"),
    path("roster/confirm/", roster.roster_confirm, name="roster_confirm"),
    path("roster/<int:enrollment_id>/status/", roster.roster_status, name="roster_status"),
    path("roster/<int:enrollment_id>/role/", roster.roster_role, name="roster_role"),
    path("roster/groups/", roster.group_create, name="group_create"),
    path("roster/groups/members/", roster.group_members, name="group_members"),
    path("roster/groups/<int:group_id>/delete/", roster.group_delete, name="group_delete"),
    path("students/<int:user_id>/password-link/", roster.password_link, name="password_link"),
    path("items/", views.item_index, name="item_index"),
    path("items/<slug:slug>/", views.item_analysis, name="item_analysis"),
    path("items/<slug:slug>/in/<slug:quiz_slug>/", views.item_analysis, name="quiz_item_analysis"),
    path("misconceptions/", views.misconceptions, name="misconceptions"),
    path("variants/", views.variant_search, name="variant_search"),
    path("export/gradebook.csv", exports.export_gradebook_csv, name="export_gradebook_csv"),
    path("export/responses.csv", exports.export_responses_csv, name="export_responses_csv"),
    path("export/responses.json", exports.export_responses_json, name="export_responses_json"),
    path("exports/", exports.exports, name="exports"),
    path("exports/start/", exports.start_export, name="start_export"),
    path("exports/<int:run_id>/download/", exports.download_export, name="download_export"),
    path("regrade/", regrade.regrade, name="regrade"),
    path("grading/", grading.grading_index, name="grading_index"),
    path("grading/<int:item_id>/<slug:part_id>/", grading.grade_part, name="grade_part"),
    path(
        "grading/<int:item_id>/<slug:part_id>/<int:response_id>/",
        grading.grade_answer,
        name="grade_answer",
    ),
    path("regrade/<int:run_id>/", regrade.regrade_detail, name="regrade_detail"),
    path("regrade/<int:run_id>/apply/", regrade.regrade_apply, name="regrade_apply"),
    path("regrade/<int:run_id>/progress/", regrade.regrade_progress, name="regrade_progress"),
    path("quizzes/", quiz_items.quiz_index, name="quiz_index"),
    path("quizzes/new/", quiz_settings.quiz_new, name="quiz_new"),
    path(_quiz + "settings/", quiz_settings.quiz_settings, name="quiz_settings"),
    path(_quiz + "publish/", quiz_settings.quiz_publish, name="quiz_publish"),
    path(_quiz + "file.yaml", quiz_settings.quiz_file, name="quiz_file"),
    path(_quiz + "preview/", quiz_settings.quiz_preview, name="quiz_preview"),
    path(_quiz + "pools/", quiz_pools.quiz_pool, name="quiz_pool"),
    path(_quiz + "pools/<slug:pool>/remove/", quiz_pools.quiz_pool_remove, name="quiz_pool_remove"),
    path(_quiz, quiz_items.quiz_items, name="quiz_items"),
    path(_quiz + "show-answers/", quiz_items.quiz_show_answers, name="quiz_show_answers"),
    path(_quiz + "add/", quiz_items.quiz_add_item, name="quiz_add_item"),
    path(
        _quiz + "items/<int:item_id>/remove/", quiz_items.quiz_remove_item, name="quiz_remove_item"
    ),
]
