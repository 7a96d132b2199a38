"""Where a login lands, by role, and the student's open work on the course home page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_GET

from courseware.home_panels import Panel
from courseware.models import Role
from courseware.roles import current_course, role_of
from quizzes.presenters import progress as progress_data

HOMES = {Role.INSTRUCTOR: "instructor:dashboard", Role.AUTHOR: "studio:template_list"}


@require_GET
@login_required
def landing(request: HttpRequest) -> HttpResponse:
    """After a login without a `next`: an instructor's dashboard, an author's studio, and for
    a student (or anyone else) the course home, which lists their open work."""
    course = current_course()
    role = role_of(request.user, course) if course is not None else None
    return redirect(HOMES.get(role, "courseware:home"))


def open_work(request: HttpRequest, course) -> Panel | None:
    """The student's attempts in progress and the quizzes still due, soonest first."""
    if role_of(request.user, course) != Role.STUDENT:
        return None
    now = timezone.now()
    rows = progress_data.quiz_rows(course, request.user)
    in_progress = [row for row in rows if row.open_attempt is not None]
    due = sorted(
        (
            row
            for row in rows
            if row.due_at and row.due_at > now and not row.submitted and not row.open_attempt
        ),
        key=lambda row: row.due_at,
    )
    return Panel("quizzes/_open_work.html", {"in_progress": in_progress, "due": due})
