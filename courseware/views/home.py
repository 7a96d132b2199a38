"""The site's home page: the reader's offerings (with each one's open work), the book's parts and
chapters, and the reader's reading progress (the book is site-wide)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from .. import home_panels
from ..models import Chapter, Course, ReadingProgress
from ..roles import enrollments_of, site_course


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    try:
        course = site_course()
    except Course.DoesNotExist:
        course = None
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
    enrollments = enrollments_of(request.user)
    context = {
        "course": course,
        "parts": parts,
        "read_ids": read_ids,
        "chapters_total": len(chapters),
        "chapters_read": len(read_ids),
        "current": [
            {"enrollment": e, "panels": home_panels.panels(request, e.offering)}
            for e in enrollments
            if not e.offering.is_archived
        ],
        "archived": [e for e in enrollments if e.offering.is_archived],
    }
    return render(request, "courseware/home.html", context)
