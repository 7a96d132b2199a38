"""Course roles for views: who may see which page.

Every page that is not for everyone uses `course_role_required`: anonymous visitors are sent
to log in, and a signed-in user without one of the roles gets the friendly 403 page.
"""

from __future__ import annotations

import copy
import threading
import time
from functools import wraps

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Subquery
from django.db.models.signals import post_delete, post_save
from django.http import HttpRequest

from .models import Course, Enrollment, Role

# The course row is read on every request of every view below, and it never decides access
# (the enrollment does, read fresh on every request): each process keeps it for at most
# COURSE_TTL_SECONDS, and forgets it at once when this process saves or deletes a course. A
# title edited on another server shows here within that bound; nothing else can be stale.
COURSE_TTL_SECONDS = 60.0
_course_lock = threading.Lock()
_course: tuple[float, Course] | None = None


def current_course() -> Course:
    """The course this site serves: a copy per call (a view may set attributes on it)."""
    global _course
    held = _course
    if held is None or time.monotonic() - held[0] > COURSE_TTL_SECONDS:
        held = (time.monotonic(), Course.objects.current())
        with _course_lock:
            _course = held
    elif held[1].slug != settings.COURSE_SLUG:  # a test or a command switched the course
        forget_course()
        return current_course()
    return copy.copy(held[1])


def forget_course(**_signal) -> None:
    global _course
    with _course_lock:
        _course = None


post_save.connect(forget_course, sender=Course, dispatch_uid="roles-forget-course-save")
post_delete.connect(forget_course, sender=Course, dispatch_uid="roles-forget-course-delete")


def enrolled_role(user_id, course_id) -> Subquery:
    """The user's role as a subquery, for a view whose own query carries it (one round trip
    instead of two); hand the value to `remember_role`. Never cached across requests."""
    return Subquery(_enrollment(user_id, course_id).values("role")[:1])


def remember_role(user, course: Course, role: str | None) -> None:
    user.__dict__.setdefault("_course_roles", {})[course.pk] = role


def _enrollment(user_id, course_id):
    # No ordering: the model's default one joins the course and user tables for nothing.
    return Enrollment.objects.filter(user_id=user_id, course_id=course_id).order_by()


def role_of(user, course: Course) -> str | None:
    """The user's role in the course, cached on the user object for this request."""
    if not user.is_authenticated:
        return None
    cache = user.__dict__.setdefault("_course_roles", {})
    if course.pk not in cache:
        cache[course.pk] = next(
            iter(_enrollment(user, course).values_list("role", flat=True)[:1]), None
        )
    return cache[course.pk]


def refuse_unless(role: str | None, allowed) -> None:
    """The friendly 403 for a user whose role is not one of `allowed`."""
    if role not in allowed:
        raise PermissionDenied(
            "This page is for the course's " + " and ".join(sorted(allowed)) + "s."
        )


def has_role(user, course: Course, *roles: str) -> bool:
    return role_of(user, course) in roles


def course_role_required(*roles: str):
    """Decorate a view so only users enrolled with one of `roles` reach it.

    The view receives `request.course` (the current course) and `request.course_role`.
    """
    allowed = set(roles) or {r.value for r in Role}

    def decorator(view):
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            course = current_course()
            role = role_of(request.user, course)
            refuse_unless(role, allowed)
            request.course = course
            request.course_role = role
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


instructor_required = course_role_required(Role.INSTRUCTOR)
author_required = course_role_required(Role.AUTHOR)
staff_required = course_role_required(Role.AUTHOR, Role.INSTRUCTOR)
student_required = course_role_required(Role.STUDENT)
enrolled_required = course_role_required(Role.STUDENT, Role.INSTRUCTOR, Role.AUTHOR)
