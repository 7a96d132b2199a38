"""The book's pages: one chapter at a time, and the reader's "mark as read"."""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from content.expressions import ExpressionError

from ..models import Chapter, Course, ReadingProgress
from ..rendering import ContentError, rendered_chapter
from ..roles import enrolled_required

logger = logging.getLogger(__name__)


def _neighbours(course: Course, chapter: Chapter) -> tuple[dict | None, dict | None]:
    """The chapters before and after ``chapter`` in reading order (one query)."""
    outline = list(
        Chapter.objects.for_course(course)
        .order_by("part__number", "order", "pk")
        .values("pk", "slug", "title")
    )
    index = next(i for i, row in enumerate(outline) if row["pk"] == chapter.pk)
    previous = outline[index - 1] if index > 0 else None
    following = outline[index + 1] if index + 1 < len(outline) else None
    return previous, following


@require_GET
def chapter_detail(request: HttpRequest, slug: str) -> HttpResponse:
    course = get_object_or_404(Course, slug=settings.COURSE_SLUG)
    request.course = course  # the context processor reuses it instead of asking again
    chapter = get_object_or_404(Chapter.objects.for_course(course), slug=slug)
    previous, following = _neighbours(course, chapter)
    is_read = (
        request.user.is_authenticated
        and ReadingProgress.objects.filter(user=request.user, chapter=chapter).exists()
    )
    context = {
        "chapter": chapter,
        "previous": previous,
        "next": following,
        "is_read": is_read,
    }
    try:
        context["rendered"] = rendered_chapter(chapter)
    except (ExpressionError, ContentError) as exc:
        # sync_content refuses such files; this guards rows that a later catalog change broke.
        logger.error("chapter %s cannot be rendered: %s", chapter.slug, exc)
        context["render_error"] = str(exc)
        return render(request, "courseware/chapter_detail.html", context, status=500)
    return render(request, "courseware/chapter_detail.html", context)


@require_POST
@enrolled_required
def mark_read(request: HttpRequest, slug: str) -> HttpResponse:
    chapter = get_object_or_404(Chapter.objects.for_course(request.course), slug=slug)
    ReadingProgress.objects.get_or_create(user=request.user, chapter=chapter)
    if request.htmx:
        return render(
            request,
            "courseware/chapter_detail.html#read-status",
            {"chapter": chapter, "is_read": True},
        )
    return redirect(chapter)
