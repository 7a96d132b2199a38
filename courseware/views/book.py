"""The book's pages: one chapter at a time, and the reader's "mark as read". The book is
site-wide content, so these pages belong to no offering; reading progress is the reader's own."""

from __future__ import annotations

import logging

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from content.expressions import ExpressionError

from ..models import Chapter, Course, ReadingProgress
from ..rendering import ContentError, rendered_chapter
from ..roles import enrollments_of, site_course

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
    try:
        course = site_course()
    except Course.DoesNotExist:
        raise Http404("No book is loaded yet.") from None
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
@login_required
def mark_read(request: HttpRequest, slug: str) -> HttpResponse:
    """Reading progress is the reader's own, book-wide; it is kept for people in an offering."""
    if not enrollments_of(request.user):
        raise PermissionDenied("Reading progress is kept for the course's students and staff.")
    chapter = get_object_or_404(Chapter.objects.for_course(site_course()), slug=slug)
    ReadingProgress.objects.get_or_create(user=request.user, chapter=chapter)
    if request.htmx:
        return render(
            request,
            "courseware/chapter_detail.html#read-status",
            {"chapter": chapter, "is_read": True},
        )
    return redirect(chapter)
