"""Extensions and accommodations: a student's extension on a quiz (the offering's staff, TAs
included, as Canvas lets graders extend a student), a group's extension and a time multiplier
for a student or a group (the offering's instructors: they change the rules for many attempts
at once), taking any of them back, the page that lists them all, and its CSV.

Dates are typed in the offering's time zone. Each write redirects back to where it came from
with a message; a refused form says why and changes nothing.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from courseware.models import StudentGroup
from courseware.roles import instructor_required, staff_required
from quizzes.forms import AccommodationForm, GroupExtensionForm
from quizzes.models import Accommodation, Extension, GroupExtension
from quizzes.services.instructor import accommodations as terms
from quizzes.services.instructor import students_of
from quizzes.services.instructor.items import enrolled_student
from quizzes.views.instructor_exports import _csv_stream, _download

TERMS_HEADER = [
    "kind",
    "who",
    "username",
    "quiz",
    "opens",
    "due",
    "closes",
    "extra minutes",
    "extra attempts",
    "time multiplier",
    "reason",
    "granted by",
    "granted at",
]


def _back(request: HttpRequest, default: str) -> HttpResponse:
    """Back to the page the form was on (a local address only), else `default`."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect(default)


def _page_url(request: HttpRequest) -> str:
    return reverse("instructor:extensions", args=[request.offering.slug])


@require_GET
@staff_required
def extensions(request: HttpRequest) -> HttpResponse:
    offering = request.offering
    students = [
        (s.pk, s.get_full_name() or s.username, s.username) for s in enrolled_students(offering)
    ]
    context = {
        "rows": terms.terms_rows(offering),
        "group_form": GroupExtensionForm(offering=offering),
        "accommodation_form": AccommodationForm(),
        "groups": list(StudentGroup.objects.filter(offering=offering)),
        "students": students,
        "zone": offering.time_zone,
    }
    return render(request, "instructor/extensions.html", context)


def enrolled_students(offering):
    return students_of(offering, active_only=True).order_by("last_name", "first_name", "username")


@require_POST
@instructor_required
def grant_group_extension(request: HttpRequest) -> HttpResponse:
    form = GroupExtensionForm(request.POST, offering=request.offering)
    if not form.is_valid():
        messages.error(request, "The group's extension was not saved. " + form.error_sentence())
        return _back(request, _page_url(request))
    data = form.cleaned_data
    data["quiz"].offering = request.offering
    try:
        terms.set_group_extension(
            quiz=data["quiz"],
            group=data["group"],
            by=request.user,
            opens_at=data["opens_at"],
            due_at=data["due_at"],
            closes_at=data["closes_at"],
            extra_minutes=data["extra_minutes"],
            extra_attempts=data["extra_attempts"],
            reason=data["reason"],
        )
    except ValidationError as error:
        messages.error(request, "The group's extension was not saved. " + " ".join(error.messages))
    else:
        messages.success(request, f"{data['group']}: extension on {data['quiz'].title} saved.")
    return _back(request, _page_url(request))


@require_POST
@instructor_required
def grant_accommodation(request: HttpRequest) -> HttpResponse:
    """A time multiplier for one of the offering's students (`student`) or groups (`group`)."""
    offering = request.offering
    form = AccommodationForm(request.POST)
    student = group = None
    try:
        if request.POST.get("student"):
            student = enrolled_student(offering, int(request.POST["student"]))
        elif request.POST.get("group"):
            group = get_object_or_404(
                StudentGroup, pk=int(request.POST["group"]), offering=offering
            )
    except ValueError:
        raise Http404("No such student or group.") from None
    if not form.is_valid():
        errors = " ".join(" ".join(e) for e in form.errors.values())
        messages.error(request, "The accommodation was not saved. " + errors)
        return _back(request, _page_url(request))
    try:
        saved = terms.set_accommodation(
            offering=offering,
            by=request.user,
            student=student,
            group=group,
            time_multiplier=form.cleaned_data["time_multiplier"],
            reason=form.cleaned_data["reason"],
        )
    except ValidationError as error:
        messages.error(request, "The accommodation was not saved. " + " ".join(error.messages))
    else:
        who = (student.get_full_name() or student.username) if student else str(group)
        messages.success(
            request,
            f"{who}: time ×{saved.time_multiplier.normalize():f} on every timed quiz.",
        )
    return _back(request, _page_url(request))


@require_POST
@staff_required
def remove_student_extension(request: HttpRequest, extension_id: int) -> HttpResponse:
    extension = get_object_or_404(
        Extension.objects.select_related("quiz", "student"),
        pk=extension_id,
        quiz__offering=request.offering,
    )
    terms.remove_extension(extension=extension)
    messages.success(request, f"Extension on {extension.quiz.title} taken back.")
    return _back(
        request,
        reverse("instructor:student_detail", args=[request.offering.slug, extension.student_id])
        + "#extensions",
    )


@require_POST
@instructor_required
def remove_group_extension(request: HttpRequest, group_extension_id: int) -> HttpResponse:
    extension = get_object_or_404(
        GroupExtension.objects.select_related("quiz", "group"),
        pk=group_extension_id,
        quiz__offering=request.offering,
    )
    terms.remove_extension(extension=extension)
    messages.success(request, f"{extension.group}: extension on {extension.quiz.title} taken back.")
    return _back(request, _page_url(request))


@require_POST
@instructor_required
def remove_accommodation(request: HttpRequest, accommodation_id: int) -> HttpResponse:
    accommodation = get_object_or_404(Accommodation, pk=accommodation_id, offering=request.offering)
    terms.remove_accommodation(accommodation=accommodation)
    messages.success(request, "Accommodation taken back.")
    return _back(request, _page_url(request))


@require_GET
@staff_required
def export_extensions_csv(request: HttpRequest):
    """Every extension and accommodation of the offering, dates in UTC (ISO 8601)."""

    def rows():
        for row in terms.terms_rows(request.offering):
            yield [
                row.kind,
                row.who,
                row.username,
                row.quiz,
                *(d.isoformat() if d else "" for d in (row.opens_at, row.due_at, row.closes_at)),
                row.extra_minutes,
                row.extra_attempts,
                row.time_multiplier if row.time_multiplier is not None else "",
                row.reason,
                row.granted_by,
                row.granted_at.isoformat() if row.granted_at else "",
            ]

    return _download(request, _csv_stream(TERMS_HEADER, rows()), "text/csv", "extensions", "csv")
