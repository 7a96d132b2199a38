from django.contrib import admin
from django.db import transaction

from quizzes.services.grades import statistics_changed
from quizzes.services.instructor.writes import refresh_open_deadlines
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
    the attempt is never served again) and counts as a grade change of its quiz (the kept
    statistics are computed again); `attempt_path` names the row's attempt id."""

    attempt_path = "attempt_id"

    def _attempt_ids(self, rows) -> list[int]:
        return [pk for pk in rows.values_list(self.attempt_path, flat=True) if pk is not None]

    def _changed(self, rows) -> None:
        bump_attempts(self._attempt_ids(rows))
        quiz_path = self.attempt_path.removesuffix("_id") + "__quiz_id"
        statistics_changed(quiz_ids=[q for q in rows.values_list(quiz_path, flat=True) if q])

    def save_model(self, request, obj, form, change):
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            self._changed(type(obj).objects.filter(pk=obj.pk))

    def delete_model(self, request, obj):
        self.delete_queryset(request, type(obj).objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            self._changed(queryset)
            super().delete_queryset(request, queryset)


class MovesOpenDeadlines(admin.ModelAdmin):
    """An admin edit of a quiz's terms (its dates, its time limit, an extension) gives the
    open attempts at the quizzes it touched the deadlines their terms now give them, as the
    instructor's pages do: `check_open` trusts an open attempt's deadline, so a revoked
    extension would otherwise keep its minutes. `quiz_path` names the row's quiz id."""

    quiz_path = "quiz_id"

    def _quiz_ids(self, rows) -> set[int]:
        return set(rows.values_list(self.quiz_path, flat=True))

    def _refresh(self, quiz_ids) -> None:
        refresh_open_deadlines(quizzes=Quiz.objects.filter(pk__in=quiz_ids))

    def save_model(self, request, obj, form, change):
        with transaction.atomic():
            before = self._quiz_ids(type(obj).objects.filter(pk=obj.pk)) if change else set()
            super().save_model(request, obj, form, change)
            self._refresh(before | self._quiz_ids(type(obj).objects.filter(pk=obj.pk)))

    def delete_model(self, request, obj):
        self.delete_queryset(request, type(obj).objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            quiz_ids = self._quiz_ids(queryset)
            super().delete_queryset(request, queryset)
            self._refresh(quiz_ids)


class QuizItemInline(admin.TabularInline):
    model = QuizItem
    extra = 0


@admin.register(Quiz)
class QuizAdmin(MovesOpenDeadlines):
    quiz_path = "pk"
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

    def save_model(self, request, obj, form, change):
        # A changed status or score changes the class's statistics (a delete: quizzes.signals).
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            statistics_changed(quiz_ids=[obj.quiz_id])


@admin.register(Variant)
class VariantAdmin(StampsAttemptPages):
    list_display = ["attempt", "item", "index", "score"]


@admin.register(Response)
class ResponseAdmin(StampsAttemptPages):
    attempt_path = "variant__attempt_id"
    list_display = ["variant", "part_id", "status", "score", "diagnosis", "created_at"]
    list_filter = ["status", "diagnosis"]


admin.site.register(ScoreOverride, StampsAttemptPages)
admin.site.register(Extension, MovesOpenDeadlines)
admin.site.register(RegradeRun)
