from django.contrib import admin

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
class VariantAdmin(admin.ModelAdmin):
    list_display = ["attempt", "item", "index", "score"]


@admin.register(Response)
class ResponseAdmin(admin.ModelAdmin):
    list_display = ["variant", "part_id", "status", "score", "diagnosis", "created_at"]
    list_filter = ["status", "diagnosis"]


admin.site.register(ScoreOverride)
admin.site.register(Extension)
admin.site.register(RegradeRun)
