"""Authoring studio pages, mounted at /studio/ (namespace "studio"); URL names equal view names.

The question bank is site-wide: these pages are for the site's authors (a site role), never
scoped to an offering. A quiz's items are the offering's (instructor_urls)."""

from django.urls import path

from quizzes.views import studio, studio_files, studio_versions

app_name = "studio"

_t = "templates/<slug:slug>/"

urlpatterns = [
    path("", studio.template_list, name="template_list"),
    path("new/", studio.template_create, name="template_create"),
    path("editor-reference.json", studio.editor_reference, name="editor_reference"),
    path(_t, studio_versions.template_detail, name="template_detail"),
    path(_t + "edit/", studio.template_edit, name="template_edit"),
    path(_t + "preview/", studio.template_preview, name="template_preview"),
    path(_t + "duplicate/", studio.template_duplicate, name="template_duplicate"),
    path(_t + "validate/", studio_versions.template_validate, name="template_validate"),
    path(_t + "publish/", studio_versions.template_publish, name="template_publish"),
    path(
        _t + "publish/<int:run_id>/",
        studio_versions.template_publish_status,
        name="template_publish_status",
    ),
    path(
        _t + "publish/<int:run_id>/cancel/",
        studio_versions.template_publish_cancel,
        name="template_publish_cancel",
    ),
    path(_t + "retire/", studio_versions.template_retire, name="template_retire"),
    path(_t + "diff/", studio_versions.template_diff, name="template_diff"),
    path("export.zip", studio_files.bank_export, name="bank_export"),
    path("import/", studio_files.bank_import, name="bank_import"),
]
