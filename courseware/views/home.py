"""The course home page: the course, its parts and chapters, and the reader's progress."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from .. import home_panels
from ..models import Chapter, Course, ReadingProgress


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    course = Course.objects.filter(slug=_course_slug()).prefetch_related("parts").first()
    chapters = list(Chapter.objects.for_course(course)) if course else []
    read_ids: set[int] = set()
    if request.user.is_authenticated and chapters:
        read_ids = set(
            ReadingProgress.objects.filter(user=request.user, chapter__in=chapters).values_list(
                "chapter_id", flat=True
            )
        )
    parts = []
    if course:
        for part in course.parts.all():
            part_chapters = [c for c in chapters if c.part_id == part.pk]
            parts.append({"part": part, "chapters": part_chapters})
    context = {
        "course": course,
        "parts": parts,
        "read_ids": read_ids,
        "chapters_total": len(chapters),
        "chapters_read": len(read_ids),
        "panels": home_panels.panels(request, course),
    }
    return render(request, "courseware/home.html", context)


def _course_slug() -> str:
    from django.conf import settings

    return settings.COURSE_SLUG
