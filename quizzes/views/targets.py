"""The answer posts' one lookup: a part's variant with everything its service needs, in one query.

An autosave or a Check arrives for every few keystrokes of a whole class, so what it costs the
server before any answer is looked at is paid hundreds of times a minute. `student_required`
then the views' own reads took five queries (the role, the attempt, the variant, the student's
extension, and the course); here the enrollment role and the extension ride along in the
variant's query, and the course comes from `current_course` (see there for its bound). The
query's SQL is compiled once per process (`PreparedLookup`).

Access is decided exactly as before, by the same rows, read in this request: anonymous visitors
are sent to log in, a user who is not a student of the course gets the 403 page, and a variant
that is not in one of the student's own attempts is "not found" (its existence is not revealed).
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.db import router
from django.db.models import FilteredRelation, Q
from django.http import Http404, HttpRequest

from courseware.models import Role
from courseware.prepared import PreparedLookup
from courseware.roles import current_course, enrolled_role, refuse_unless, remember_role, role_of
from quizzes.models import Variant
from quizzes.services.availability import remember_extension

STUDENTS = {Role.STUDENT}


def _lookup(*, user_id, course_id, attempt_id, variant_id):
    return (
        Variant.objects.filter(pk=variant_id, attempt_id=attempt_id, attempt__student_id=user_id)
        .annotate(
            course_role=enrolled_role(user_id, course_id),
            # At most one row: one extension per quiz and student (a unique constraint).
            own_extension=FilteredRelation(
                "attempt__quiz__extensions",
                condition=Q(attempt__quiz__extensions__student_id=user_id),
            ),
        )
        .select_related("attempt__quiz", "item", "version", "own_extension")
        .order_by()
    )


# Compiled once per process (courseware/prepared.py): building this SQL costs several times
# what the database takes to answer it.
_OWN_VARIANT = PreparedLookup(_lookup, "user_id", "course_id", "attempt_id", "variant_id")


def _own_variant(user, course, attempt_id: int, variant_id: int) -> Variant | None:
    return _OWN_VARIANT.first(
        using=router.db_for_read(Variant),
        user_id=user.pk,
        course_id=course.pk,
        attempt_id=attempt_id,
        variant_id=variant_id,
    )


def student_part_view(view):
    """`student_required` for a view of one part of a student's own attempt.

    The view is called as `view(request, variant, part_id)`, with `variant.attempt` (its quiz
    and student) loaded, and `request.course` and `request.course_role` set as the decorator
    does.
    """

    @wraps(view)
    def wrapper(request: HttpRequest, attempt_id: int, variant_id: int, part_id: str):
        user = request.user
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        course = current_course()
        variant = _own_variant(user, course, attempt_id, variant_id)
        # No row: nothing said the role, so read it as the decorator would (a 403 comes first).
        role = variant.course_role if variant is not None else role_of(user, course)
        remember_role(user, course, role)
        refuse_unless(role, STUDENTS)
        if variant is None:
            raise Http404("No such question in your attempts.")
        attempt = variant.attempt
        attempt.student = user
        remember_extension(attempt.quiz, user, getattr(variant, "own_extension", None))
        request.course = course
        request.course_role = role
        return view(request, variant, part_id)

    return wrapper
