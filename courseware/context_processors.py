"""Template context every page needs: the course and the reader's role in it.

Error pages use this too, and they are rendered for requests that never reached the
authentication middleware (a refused Host header) or while the database is down; then the page
simply shows no course navigation.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError

from .models import Course
from .roles import role_of

log = logging.getLogger(__name__)


def course(request):
    user = getattr(request, "user", None)
    if user is None:
        return {"course": None, "course_role": None}
    try:
        course = getattr(request, "course", None)
        if course is None:
            course = Course.objects.filter(slug=_slug()).first()
        role = role_of(user, course) if course is not None else None
    except DatabaseError:
        log.warning("course context unavailable: the database did not answer", exc_info=True)
        return {"course": None, "course_role": None}
    return {"course": course, "course_role": role}


def _slug() -> str:
    from django.conf import settings

    return settings.COURSE_SLUG
