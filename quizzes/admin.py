from django.contrib import admin
from django.db import transaction

from quizzes.services.instructor.writes import refresh_open_deadlines

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


# An admin edit of these rows raises the stamps of the pages and statistics that show them
# like any other write (quizzes/stamps.py).
@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["quiz", "student", "number", "status", "score", "is_late"]
    list_filter = ["quiz", "status"]


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ["attempt", "item", "index", "score"]


@admin.register(Response)
class ResponseAdmin(admin.ModelAdmin):
    list_display = ["variant", "part_id", "status", "score", "diagnosis", "created_at"]
    list_filter = ["status", "diagnosis"]


admin.site.register(ScoreOverride)
admin.site.register(Extension, MovesOpenDeadlines)
admin.site.register(RegradeRun)
