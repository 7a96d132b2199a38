"""The answer posts' one lookup: a part's variant with everything its service needs, in one query.

An autosave or a Check arrives for every few keystrokes of a whole class, so what it costs the
server before any answer is looked at is paid hundreds of times a minute. `student_required`
then the views' own reads took five queries (the role, the attempt, the variant, the student's
extension, and the course); here the offering named in the URL, the enrolment role in it and
the extension (with the student's groups' extensions and time multiplier, as subqueries) ride
along in the variant's query. The query's SQL is compiled once per process
(`PreparedLookup`).

Access is decided by the same rows, read in this request: anonymous visitors are sent to log
in, a user who is not a student of the URL's offering gets the 403 page, and a variant that is
not in one of the student's own attempts at a quiz of that offering is "not found" (its
existence is not revealed, nor that it belongs to another offering).
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.db import router
from django.db.models import FilteredRelation, OuterRef, Q
from django.http import Http404, HttpRequest

from courseware.models import Role
from courseware.prepared import PreparedLookup
from courseware.roles import enrolled_role, enter, offering_and_role, refuse_unless, remember_role
from quizzes.models import Attempt, Quiz, Variant
from quizzes.services.availability import remember_terms, terms_annotations, terms_from_row

STUDENTS = {Role.STUDENT}


def _lookup(*, user_id, offering_slug, attempt_id, variant_id):
    return (
        Variant.objects.filter(
            pk=variant_id,
            attempt_id=attempt_id,
            attempt__student_id=user_id,
            attempt__quiz__offering__slug=offering_slug,
        )
        .annotate(
            offering_role=enrolled_role(user_id, OuterRef("attempt__quiz__offering_id")),
            # At most one row: one extension per quiz and student (a unique constraint).
            own_extension=FilteredRelation(
                "attempt__quiz__extensions",
                condition=Q(attempt__quiz__extensions__student_id=user_id),
            ),
            # The student's groups' extensions and their time multiplier, as scalar subqueries.
            **terms_annotations(
                quiz=OuterRef("attempt__quiz_id"),
                offering=OuterRef("attempt__quiz__offering_id"),
                user_id=user_id,
            ),
        )
        .select_related("attempt__quiz__offering__course", "item", "version", "own_extension")
        .order_by()
    )


# Compiled once per process (courseware/prepared.py): building this SQL costs several times
# what the database takes to answer it.
_OWN_VARIANT = PreparedLookup(
    _lookup, "user_id", "offering_slug", "attempt_id", "variant_id", text=("offering_slug",)
)


def _own_variant(user, offering_slug: str, attempt_id: int, variant_id: int) -> Variant | None:
    return _OWN_VARIANT.first(
        using=router.db_for_read(Variant),
        user_id=user.pk,
        offering_slug=offering_slug,
        attempt_id=attempt_id,
        variant_id=variant_id,
    )


def student_part_view(view):
    """`student_required` for a view of one part of a student's own attempt.

    The view is called as `view(request, variant, part_id)`, with `variant.attempt` (its quiz,
    the quiz's offering and the student) loaded, and `request.offering`, `request.course` and
    `request.offering_role` set as the decorator does.
    """

    @wraps(view)
    def wrapper(
        request: HttpRequest, offering: str, attempt_id: int, variant_id: int, part_id: str
    ):
        user = request.user
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        variant = _own_variant(user, offering, attempt_id, variant_id)
        if variant is None:
            # No row: nothing said the role, so read it as the decorator would (a 403 first).
            found, role = offering_and_role(user, offering)
            refuse_unless(role, STUDENTS)
            raise Http404("No such question in your attempts.")
        attempt = variant.attempt
        found, role = attempt.quiz.offering, variant.offering_role
        remember_role(user, found, role)
        refuse_unless(role, STUDENTS)
        attempt.student = user
        groups, multiplier = terms_from_row(variant)
        remember_terms(
            attempt.quiz, user, getattr(variant, "own_extension", None), groups, multiplier
        )
        enter(request, found, role)
        return view(request, variant, part_id)

    wrapper.offering_roles = frozenset(STUDENTS)
    return wrapper


# -- the attempt pages' one lookup -----------------------------------------------------------


def _attempt_lookup(*, user_id, offering_id, attempt_id):
    return (
        Attempt.objects.filter(pk=attempt_id, student_id=user_id, quiz__offering_id=offering_id)
        .annotate(
            own_extension=FilteredRelation(
                "quiz__extensions", condition=Q(quiz__extensions__student_id=user_id)
            ),
            **terms_annotations(
                quiz=OuterRef("quiz_id"), offering=OuterRef("quiz__offering_id"), user_id=user_id
            ),
        )
        .select_related("quiz", "own_extension")
        .order_by()
    )


# Measured on the warm attempt page (bench ratios, December 2026): building this queryset with
# its terms subqueries cost about 6 ms of the page's 12, the database under 0.1 ms.
_OWN_ATTEMPT = PreparedLookup(_attempt_lookup, "user_id", "offering_id", "attempt_id")


def own_attempt(request: HttpRequest, attempt_id: int) -> Attempt:
    """The student's own attempt at a quiz of the request's offering, with the student's
    extension, group terms and time multiplier read in the same query (`remember_terms`), so
    `student_window` reads no row. Someone else's attempt, or one of another offering, is
    "not found", not "forbidden": its existence is not revealed."""
    user, offering = request.user, request.offering
    attempt = _OWN_ATTEMPT.first(
        using=router.db_for_read(Attempt),
        user_id=user.pk,
        offering_id=offering.pk,
        attempt_id=attempt_id,
    )
    if attempt is None:
        raise Http404("No such attempt in your quizzes.")
    attempt.student = user
    attempt.quiz.offering = offering
    groups, multiplier = terms_from_row(attempt)
    remember_terms(attempt.quiz, user, getattr(attempt, "own_extension", None), groups, multiplier)
    return attempt


# -- the quiz page's and Start's one lookup --------------------------------------------------


def _quiz_lookup(*, user_id, offering_id, slug):
    # Published or not is checked on the row (`offering_quiz`): a constant in the SQL would be
    # frozen into the compiled statement, which PreparedLookup refuses.
    return (
        Quiz.objects.filter(offering_id=offering_id, slug=slug)
        .annotate(
            own_extension=FilteredRelation(
                "extensions", condition=Q(extensions__student_id=user_id)
            ),
            **terms_annotations(
                quiz=OuterRef("pk"), offering=OuterRef("offering_id"), user_id=user_id
            ),
        )
        .select_related("chapter", "own_extension")
        .order_by()
    )


# Measured on the quiz page (docs/BENCHMARKS.md, "The arrival"): building the student's window
# query with its terms subqueries cost about 7 ms of CPU, half the page; the database answers
# it in well under a millisecond.
_OFFERING_QUIZ = PreparedLookup(_quiz_lookup, "user_id", "offering_id", "slug", text=("slug",))


def offering_quiz(request: HttpRequest, slug: str) -> Quiz:
    """The published quiz `slug` of the request's offering, with its chapter and the user's
    extension, group terms and time multiplier read in the same query (`remember_terms`), so
    `student_window` (the quiz page's, Start's) reads no row. Another offering's quiz, or one
    not published, is "not found"."""
    user, offering = request.user, request.offering
    quiz = _OFFERING_QUIZ.first(
        using=router.db_for_read(Quiz), user_id=user.pk, offering_id=offering.pk, slug=slug
    )
    if quiz is None or not quiz.is_published:
        raise Http404("No such quiz in this offering.")
    quiz.offering = offering
    groups, multiplier = terms_from_row(quiz)
    remember_terms(quiz, user, getattr(quiz, "own_extension", None), groups, multiplier)
    return quiz
