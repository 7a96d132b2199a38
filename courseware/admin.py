from django.contrib import admin

from .models import Chapter, Course, Enrollment, Part, ReadingProgress


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "created_at"]


@admin.register(Part)
class PartAdmin(admin.ModelAdmin):
    list_display = ["course", "number", "title"]


@admin.register(Chapter)
class ChapterAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "part", "order", "updated_at"]


@admin.register(Enrollment)
class EnrollmentAdmin(admin.ModelAdmin):
    list_display = ["user", "course", "role", "enrolled_at"]
    list_filter = ["course", "role"]


@admin.register(ReadingProgress)
class ReadingProgressAdmin(admin.ModelAdmin):
    list_display = ["user", "chapter", "read_at"]
