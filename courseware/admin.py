from django.contrib import admin
from django.core.exceptions import PermissionDenied

from .models import Chapter, Course, Enrollment, Part, ReadingProgress

_admin_login = admin.site.login


def _login_refusing_non_staff(request, extra_context=None):
    # A signed-in student asking for /admin/ is refused outright rather than shown a login form.
    if request.user.is_authenticated and not request.user.is_staff:
        raise PermissionDenied("The administration pages are for site staff.")
    return _admin_login(request, extra_context)


admin.site.login = _login_refusing_non_staff
admin.site.site_header = "The Hardware Reality: administration"


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
