"""Redirects from the single-course addresses (before offerings) to the offering they mean.

An old address is followed only where the offering is unambiguous: the attempt's own offering
for an attempt the user took, else the user's one current offering. A user in several is sent
to the home page, which lists their offerings; nothing is guessed, and a redirect never grants
anything (the target checks the role in its offering as always). Only GET and HEAD are
redirected: a form posted to an old address is refused, not replayed somewhere else.
"""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_safe

from courseware.roles import enrollments_of
from quizzes.models import Attempt

_ATTEMPT = re.compile(r"^attempts/(\d+)(?:/|$)")
AMBIGUOUS = (
    "That address is from before the site had several offerings, and you are in more than "
    "one: choose the offering below."
)


def _offering_for(request: HttpRequest, rest: str):
    current = [e.offering for e in enrollments_of(request.user) if not e.offering.is_archived]
    mine = {o.pk: o for o in current}
    attempt = _ATTEMPT.match(rest)
    if attempt:
        quiz_offering = (
            Attempt.objects.filter(pk=int(attempt.group(1)), student=request.user)
            .values_list("quiz__offering_id", flat=True)
            .first()
        )
        if quiz_offering in mine:
            return mine[quiz_offering]
    return current[0] if len(current) == 1 else None


def _follow(request: HttpRequest, prefix: str, rest: str) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    offering = _offering_for(request, rest)
    if offering is None:
        if not enrollments_of(request.user):
            raise Http404("No such page.")
        messages.info(request, AMBIGUOUS)
        return redirect("courseware:home")
    query = request.META.get("QUERY_STRING", "")
    target = f"/o/{offering.slug}/{prefix}{rest}" + (f"?{query}" if query else "")
    return redirect(target)


@require_safe
def to_offering(request: HttpRequest, rest: str) -> HttpResponse:
    """/quizzes/..., /attempts/..., /progress/, /instructor/... -> /o/<offering>/..."""
    return _follow(request, "", rest)


@require_safe
def to_offering_staff(request: HttpRequest, rest: str) -> HttpResponse:
    """/studio/quizzes/... (the quiz items pages) -> /o/<offering>/instructor/quizzes/..."""
    return _follow(request, "instructor/", rest)


@require_safe
def to_offering_lms(request: HttpRequest, rest: str) -> HttpResponse:
    """/lti/grades/... -> /o/<offering>/lms/grades/..."""
    return _follow(request, "lms/", rest)
