"""Template context every page needs: the course and the reader's role in it."""

from __future__ import annotations

from .models import Course
from .roles import role_of


def course(request):
    course = getattr(request, "course", None)
    if course is None:
        course = Course.objects.filter(slug=_slug()).first()
    role = role_of(request.user, course) if course is not None else None
    return {"course": course, "course_role": role}


def _slug() -> str:
    from django.conf import settings

    return settings.COURSE_SLUG
