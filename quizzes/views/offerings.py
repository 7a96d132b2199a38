"""The site administrator's pages: every offering, a new one, a copy of one (a new term in a
minute), an offering's names, staff and archiving.

For site administrators only (`site_admin_required`: the administrator site role, or a
superuser). Being one opens no offering's own pages: an administrator who wants to read a
gradebook gives themself a role there, and the offering's instructors see that they did.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count, Prefetch, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from courseware import offerings as service
from courseware.models import Enrollment, Offering, Role
from courseware.roles import site_admin_required
from quizzes.forms.offerings import CopyOfferingForm, NewOfferingForm, OfferingNamesForm, StaffForm
from quizzes.services.offerings import copy_offering


def _staff():
    return Prefetch(
        "enrollments",
        queryset=Enrollment.objects.filter(role__in=[Role.INSTRUCTOR, Role.TEACHING_ASSISTANT])
        .select_related("user")
        .order_by("-role", "user__last_name", "user__username"),
        to_attr="staff",
    )


def _offering(slug: str) -> Offering:
    return get_object_or_404(Offering.objects.select_related("course", "copied_from"), slug=slug)


def _messages_of(error: ValidationError) -> str:
    return " ".join(error.messages)


@require_http_methods(["GET"])
@site_admin_required
def offering_list(request: HttpRequest) -> HttpResponse:
    offerings = (
        Offering.objects.select_related("copied_from")
        .annotate(
            students=Count("enrollments", filter=Q(enrollments__role=Role.STUDENT), distinct=True),
            quiz_count=Count("quizzes", distinct=True),
        )
        .prefetch_related(_staff())
        .order_by("is_archived", "-created_at", "title")
    )
    return render(request, "site/offering_list.html", {"offerings": offerings})


@require_http_methods(["GET", "POST"])
@site_admin_required
def offering_create(request: HttpRequest) -> HttpResponse:
    form = NewOfferingForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            offering = service.create_offering(
                course=request.course,
                slug=data["slug"],
                title=data["title"],
                term=data["term"],
                section=data["section"],
                time_zone=data["time_zone"],
                by=request.user,
            )
        except ValidationError as error:
            form.add_error(None, _messages_of(error))
        else:
            messages.success(request, f"{offering.title} created. Name its instructors below.")
            return redirect("site:offering_detail", slug=offering.slug)
    status = 400 if form.errors else 200
    return render(request, "site/offering_create.html", {"form": form}, status=status)


@require_http_methods(["GET", "POST"])
@site_admin_required
def offering_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The offering's names and time zone (POST saves them), its staff and its state."""
    offering = _offering(slug)
    form = OfferingNamesForm(request.POST) if request.method == "POST" else None
    if form is not None and form.is_valid():
        try:
            service.update_offering(offering=offering, **form.cleaned_data)
        except ValidationError as error:
            form.add_error(None, _messages_of(error))
        else:
            messages.success(request, "Saved.")
            return redirect("site:offering_detail", slug=offering.slug)
    return _detail_page(request, offering, names=form)


def _detail_page(request, offering: Offering, *, names=None, staff=None) -> HttpResponse:
    enrollments = (
        Enrollment.objects.filter(offering=offering)
        .exclude(role=Role.STUDENT)
        .select_related("user")
        .order_by("-role", "user__last_name", "user__username")
    )
    # `target`, never `offering`: that name is the page's own offering (none here; the header).
    context = {
        "target": offering,
        "names_form": names or OfferingNamesForm.of(offering),
        "staff_form": staff or StaffForm(),
        "staff": enrollments,
        "students": offering.enrollments.filter(role=Role.STUDENT).count(),
        "quizzes": offering.quizzes.count(),
        "copies": offering.copies.order_by("-created_at"),
    }
    bad = (names is not None and names.errors) or (staff is not None and staff.errors)
    return render(request, "site/offering_detail.html", context, status=400 if bad else 200)


@require_http_methods(["GET", "POST"])
@site_admin_required
def offering_copy(request: HttpRequest, slug: str) -> HttpResponse:
    source = _offering(slug)
    initial = {
        "title": source.title,
        "term": source.term,
        "section": source.section,
        "time_zone": source.time_zone,
        "shift_days": 0,
    }
    form = CopyOfferingForm(request.POST or None, initial=initial, source=source)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            copy = copy_offering(
                source=source,
                slug=data["slug"],
                title=data["title"],
                term=data["term"],
                section=data["section"],
                time_zone=data["time_zone"],
                shift=timedelta(days=data["shift_days"]),
                by=request.user,
                instructors=list(data["instructors"]),
            )
        except ValidationError as error:
            form.add_error(None, _messages_of(error))
        else:
            messages.success(
                request,
                f"{copy.title} created from {source.title}: {copy.quizzes.count()} quizzes, "
                "no students, no attempts.",
            )
            return redirect("site:offering_detail", slug=copy.slug)
    status = 400 if form.errors else 200
    context = {"source": source, "form": form, "quiz_count": source.quizzes.count()}
    return render(request, "site/offering_copy.html", context, status=status)


@require_POST
@site_admin_required
def offering_archive(request: HttpRequest, slug: str) -> HttpResponse:
    offering = _offering(slug)
    archive = request.POST.get("archived") == "1"
    try:
        service.set_archived(offering=offering, archived=archive)
    except ValidationError as error:
        messages.error(request, _messages_of(error))
    else:
        messages.success(request, f"{offering.title} {'archived' if archive else 'restored'}.")
    return redirect("site:offering_detail", slug=offering.slug)


@require_POST
@site_admin_required
def offering_staff(request: HttpRequest, slug: str) -> HttpResponse:
    offering = _offering(slug)
    form = StaffForm(request.POST)
    if not form.is_valid():
        return _detail_page(request, offering, staff=form)
    user, role = form.cleaned_data["username"], form.cleaned_data["role"]
    service.give_role(offering=offering, user=user, role=role)
    label = Role(role).label.lower()
    messages.success(request, f"{user.get_full_name() or user.username} is now {label} here.")
    return redirect("site:offering_detail", slug=offering.slug)


@require_POST
@site_admin_required
def staff_remove(request: HttpRequest, slug: str, enrollment_id: int) -> HttpResponse:
    offering = _offering(slug)
    enrollment = get_object_or_404(
        Enrollment.objects.select_related("user"), pk=enrollment_id, offering=offering
    )
    try:
        service.remove_staff(enrollment=enrollment)
    except ValidationError as error:
        messages.error(request, _messages_of(error))
    else:
        user = enrollment.user
        messages.success(request, f"{user.get_full_name() or user.username} left the staff.")
    return redirect("site:offering_detail", slug=offering.slug)
