from django.contrib import admin

from .models import Chapter, Course, Enrollment, Offering, Part, ReadingProgress, SiteRole


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "created_at"]


@admin.register(Offering)
class OfferingAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "term", "section", "is_default", "is_archived"]
    list_filter = ["is_archived", "course"]
    # The slug is in every address of the offering: set once, when it is created.
    readonly_fields = ["created_at", "created_by", "copied_from"]

    def get_readonly_fields(self, request, obj=None):
        return [*self.readonly_fields, "slug"] if obj is not None else self.readonly_fields


@admin.register(Part)
class PartAdmin(admin.ModelAdmin):
    list_display = ["course", "number", "title"]


@admin.register(Chapter)
class ChapterAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "part", "order", "updated_at"]


@admin.register(Enrollment)
class EnrollmentAdmin(admin.ModelAdmin):
    list_display = ["user", "offering", "role", "source", "enrolled_at"]
    list_filter = ["offering", "role", "source"]


@admin.register(SiteRole)
class SiteRoleAdmin(admin.ModelAdmin):
    list_display = ["user", "role", "granted_at", "granted_by"]
    list_filter = ["role"]


@admin.register(ReadingProgress)
class ReadingProgressAdmin(admin.ModelAdmin):
    list_display = ["user", "chapter", "read_at"]
