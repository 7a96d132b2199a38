"""Where a login lands, and the student's open work in an offering (a home page panel)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_GET

from courseware.home_panels import Panel
from courseware.models import Role
from courseware.roles import STAFF, enrollments_of, is_author, is_site_admin, role_of
from quizzes.presenters import progress as progress_data


@require_GET
@login_required
def landing(request: HttpRequest) -> HttpResponse:
    """After a login without a `next`: with one current offering, its dashboard (staff) or its
    front page (students); with several, the home page that lists them; with none, the studio
    for an author and the offerings page for a site administrator."""
    user = request.user
    current = [e for e in enrollments_of(user) if not e.offering.is_archived]
    if len(current) == 1:
        enrollment = current[0]
        home = "instructor:dashboard" if enrollment.role in STAFF else "quizzes:offering_home"
        return redirect(home, offering=enrollment.offering.slug)
    if not current and is_author(user):
        return redirect("studio:template_list")
    if not current and is_site_admin(user):
        return redirect("site:offering_list")
    return redirect("courseware:home")


def open_work(request: HttpRequest, offering) -> Panel | None:
    """The student's attempts in progress and the quizzes still due, soonest first."""
    if role_of(request.user, offering) != Role.STUDENT:
        return None
    now = timezone.now()
    rows = progress_data.quiz_rows(offering, request.user)
    in_progress = [row for row in rows if row.open_attempt is not None]
    due = sorted(
        (
            row
            for row in rows
            if row.due_at and row.due_at > now and not row.submitted and not row.open_attempt
        ),
        key=lambda row: row.due_at,
    )
    return Panel(
        "quizzes/_open_work.html", {"offering": offering, "in_progress": in_progress, "due": due}
    )
