"""An offering's LMS page: per student, whether the LMS has the current score; resend (staff);
roster sync (instructors: a roster change). Only the offering's own LMS links and syncs."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from courseware.roles import instructor_required, staff_required
from lti import passback, roster
from lti.models import GradeSync, SyncStatus


def _state(sync: GradeSync, counted) -> str:
    if counted is None:
        return "No submitted attempt yet"
    if passback.is_current(sync):
        return "LMS has the current score"
    if sync.status == SyncStatus.RETRYING:
        return f"Sending failed (try {sync.tries}); retrying"
    if sync.status == SyncStatus.FAILED:
        return "Sending failed; resend it"
    return "Waiting to be sent"


@require_GET
@staff_required
def grades(request):
    rows = []
    syncs = (
        GradeSync.objects.filter(line_item__quiz__offering=request.offering)
        .select_related("user", "line_item__quiz", "line_item__context")
        .order_by("line_item__quiz__position", "user__last_name", "user__username")
    )
    for sync in syncs:
        counted = passback.counted_score(sync.user_id, sync.line_item.quiz_id)
        rows.append(
            {
                "sync": sync,
                "counted": counted,
                "state": _state(sync, counted),
                "current": counted is not None and passback.is_current(sync),
            }
        )
    contexts = list(roster.contexts_of(request.offering))
    return render(request, "lti/grades.html", {"rows": rows, "contexts": contexts})


@require_POST
@staff_required
def resend(request, sync_id: int):
    sync = get_object_or_404(GradeSync, pk=sync_id, line_item__quiz__offering=request.offering)
    passback.resend(sync)
    messages.success(request, f"The score of {sync.user.get_full_name() or sync.user} is queued.")
    return redirect("lms:grades", offering=request.offering.slug)


@require_POST
@instructor_required
def sync_roster(request):
    try:
        result = roster.sync_offering(request.offering)
    except roster.RosterError as error:
        messages.error(request, str(error))
        return redirect("lms:grades", offering=request.offering.slug)
    for error in result.errors:  # one LMS course that failed; the others were synced
        messages.error(request, error)
    if result.members or not result.errors:
        messages.success(
            request,
            f"Roster: {result.members} member(s) in the LMS, {result.added} new here"
            + (f", {result.skipped} without a role of ours" if result.skipped else "")
            + ".",
        )
    return redirect("lms:grades", offering=request.offering.slug)
