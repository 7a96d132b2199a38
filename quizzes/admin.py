from django.contrib import admin
from django.db import transaction

from quizzes.services.page_stamp import bump_attempts

from .models import (
    Attempt,
    Extension,
    QuestionTemplate,
    Quiz,
    QuizItem,
    RegradeRun,
    Response,
    ScoreOverride,
    TemplateVersion,
    Variant,
)


class StampsAttemptPages(admin.ModelAdmin):
    """An admin edit of a student's rows raises their attempt's page stamp (a memoised page of
    the attempt is never served again); `attempt_path` names the row's attempt id."""

    attempt_path = "attempt_id"

    def _attempt_ids(self, rows) -> list[int]:
        return [pk for pk in rows.values_list(self.attempt_path, flat=True) if pk is not None]

    def save_model(self, request, obj, form, change):
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            bump_attempts(self._attempt_ids(type(obj).objects.filter(pk=obj.pk)))

    def delete_model(self, request, obj):
        self.delete_queryset(request, type(obj).objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            bump_attempts(self._attempt_ids(queryset))
            super().delete_queryset(request, queryset)


class QuizItemInline(admin.TabularInline):
    model = QuizItem
    extra = 0


@admin.register(Quiz)
class QuizAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "mode", "due_at", "show_answers", "is_published"]
    list_filter = ["mode", "show_answers"]
    inlines = [QuizItemInline]


@admin.register(QuestionTemplate)
class QuestionTemplateAdmin(admin.ModelAdmin):
    list_display = ["slug", "title", "chapter_slug", "kind", "status"]
    list_filter = ["status", "chapter_slug", "kind"]
    search_fields = ["slug", "title"]


@admin.register(TemplateVersion)
class TemplateVersionAdmin(admin.ModelAdmin):
    list_display = ["template", "number", "published_at"]


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["quiz", "student", "number", "status", "score", "is_late"]
    list_filter = ["quiz", "status"]


@admin.register(Variant)
class VariantAdmin(StampsAttemptPages):
    list_display = ["attempt", "item", "index", "score"]


@admin.register(Response)
class ResponseAdmin(StampsAttemptPages):
    attempt_path = "variant__attempt_id"
    list_display = ["variant", "part_id", "status", "score", "diagnosis", "created_at"]
    list_filter = ["status", "diagnosis"]


admin.site.register(ScoreOverride, StampsAttemptPages)
admin.site.register(Extension)
admin.site.register(RegradeRun)
