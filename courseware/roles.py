"""Course roles for views: who may see which page.

Every page that is not for everyone uses `course_role_required`: anonymous visitors are sent
to log in, and a signed-in user without one of the roles gets the friendly 403 page.
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from .models import Course, Enrollment, Role


def current_course() -> Course:
    return Course.objects.current()


def role_of(user, course: Course) -> str | None:
    """The user's role in the course, cached on the user object for this request."""
    if not user.is_authenticated:
        return None
    cache = user.__dict__.setdefault("_course_roles", {})
    if course.pk not in cache:
        cache[course.pk] = (
            Enrollment.objects.filter(user=user, course=course)
            .values_list("role", flat=True)
            .first()
        )
    return cache[course.pk]


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
            if role not in allowed:
                raise PermissionDenied(
                    "This page is for the course's " + " and ".join(sorted(allowed)) + "s."
                )
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
