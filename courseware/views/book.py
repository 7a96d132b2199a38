"""The book's pages: one chapter at a time, rendered from its Markdown source."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from ..models import Chapter, Course
from ..rendering import render_markdown


@require_GET
def chapter_detail(request: HttpRequest, slug: str) -> HttpResponse:
    course = Course.objects.current()
    chapter = get_object_or_404(Chapter.objects.for_course(course), slug=slug)
    return render(
        request,
        "courseware/chapter_detail.html",
        {"chapter": chapter, "body": render_markdown(chapter.source)},
    )
