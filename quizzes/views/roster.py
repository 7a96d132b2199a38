"""The roster: who is in the offering, in which role and groups; add one student, upload a roster
file (previewed line by line, nothing changed until confirmed), deactivate and reactivate,
change a role, make groups and put students in them, and a one-time set-password link.

The offering's staff read it; only its instructors change it (teaching assistants make no
roster changes, as the offerings' roles say). Every change is in the audit trail shown at the
foot of the page; `courseware.roster` and `courseware.roster_file` hold the rules.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Prefetch, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from courseware import passwords, roster
from courseware import roster_file as files
from courseware.models import (
    AuditEvent,
    Enrollment,
    GroupKind,
    GroupMembership,
    Role,
    StudentGroup,
)
from courseware.roles import instructor_required, staff_required
from courseware.throttling import client_ip
from quizzes.forms.roster import AddStudentForm, GroupForm, RosterFileForm
from quizzes.services.instructor.accommodations import members_changed
from quizzes.services.instructor.items import enrolled_student

AUDIT_SHOWN = 30


def _roster_url(request: HttpRequest) -> str:
    return reverse("instructor:roster", args=[request.offering.slug])


def _members(offering, search: str = ""):
    rows = (
        Enrollment.objects.filter(offering=offering)
        .select_related("user")
        .prefetch_related(
            Prefetch(
                "user__group_memberships",
                queryset=GroupMembership.objects.filter(group__offering=offering).select_related(
                    "group"
                ),
                to_attr="groups_here",
            )
        )
        .order_by("role", "-is_active", "user__last_name", "user__first_name", "user__username")
    )
    for word in search.split()[:5]:
        rows = rows.filter(
            Q(user__username__icontains=word)
            | Q(user__last_name__icontains=word)
            | Q(user__first_name__icontains=word)
            | Q(user__email__icontains=word)
        )
    return rows


@require_GET
@staff_required
def roster_page(request: HttpRequest) -> HttpResponse:
    return _page(request)


def _page(request: HttpRequest, *, add_form=None, group_form=None, status=200) -> HttpResponse:
    offering = request.offering
    search = request.GET.get("q", "").strip()[:100]
    members = list(_members(offering, search))
    context = {
        "members": members,
        "students": sum(1 for m in members if m.role == Role.STUDENT and m.is_active),
        "inactive": sum(1 for m in members if m.role == Role.STUDENT and not m.is_active),
        "groups": list(StudentGroup.objects.filter(offering=offering)),
        "add_form": add_form or AddStudentForm(offering=offering),
        "group_form": group_form or GroupForm(),
        "file_form": RosterFileForm(),
        "roles": Role.choices,
        "kinds": GroupKind.choices,
        "events": AuditEvent.objects.filter(offering=offering).select_related("actor", "subject")[
            :AUDIT_SHOWN
        ],
        "q": search,
    }
    return render(request, "instructor/roster.html", context, status=status)


@require_POST
@instructor_required
def roster_add(request: HttpRequest) -> HttpResponse:
    form = AddStudentForm(request.POST, offering=request.offering)
    if not form.is_valid():
        return _page(request, add_form=form, status=400)
    data = form.cleaned_data
    try:
        account, said = roster.add_student(
            offering=request.offering,
            by=request.user,
            username=data["username"],
            first_name=data["first_name"],
            last_name=data["last_name"],
            email=data["email"],
            group=data["group"],
            address=client_ip(request),
        )
    except ValidationError as error:
        form.add_error(None, " ".join(error.messages))
        return _page(request, add_form=form, status=400)
    if data["group"] is not None:
        members_changed(offering=request.offering, user_ids=[account.pk])
    messages.success(request, said + " Give them a set-password link from their row.")
    return redirect(f"{_roster_url(request)}#member-{account.pk}")


@require_POST
@instructor_required
def roster_upload(request: HttpRequest) -> HttpResponse:
    """Read an uploaded roster file and show what applying it would do (nothing changes)."""
    form = RosterFileForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "The roster file was not read. " + form.error_sentence())
        return redirect(_roster_url(request))
    try:
        text = files.decode(form.cleaned_data["file"].read(files.MAX_BYTES + 1))
        plan = files.plan_roster(offering=request.offering, text=text, by=request.user)
    except files.RosterFileError as error:
        messages.error(request, "The roster file was not read. " + error.message)
        return redirect(_roster_url(request))
    return _preview(request, plan, text)


def _preview(request: HttpRequest, plan, text: str, status: int = 200) -> HttpResponse:
    counts = {action: plan.count(action) for action in ("new", "enrol", "update", "unchanged")}
    context = {"plan": plan, "text": text, "counts": counts}
    return render(request, "instructor/roster_preview.html", context, status=status)


@require_POST
@instructor_required
def roster_confirm(request: HttpRequest) -> HttpResponse:
    """Apply a previewed file: the text and the plan's digest come back from the preview."""
    text = request.POST.get("text", "")
    try:
        if len(text.encode()) > files.MAX_BYTES:
            raise files.RosterFileError("The file is too large.")
        plan = files.apply_roster(
            offering=request.offering,
            text=text,
            digest=request.POST.get("digest", ""),
            by=request.user,
            address=client_ip(request),
        )
    except files.RosterFileError as error:
        messages.error(request, "Nothing was changed. " + error.message)
        return redirect(_roster_url(request))
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        try:
            plan = files.plan_roster(offering=request.offering, text=text, by=request.user)
        except files.RosterFileError:
            return redirect(_roster_url(request))
        return _preview(request, plan, text, status=409)
    members_changed(offering=request.offering)
    if not plan.changes_anything:
        messages.info(request, "Nothing to change: the roster already matches this file.")
    else:
        messages.success(
            request,
            f"Roster updated: {plan.count('new')} new account(s), {plan.count('enrol')} existing "
            f"account(s) enrolled, {plan.count('update')} updated, "
            f"{plan.count('unchanged')} unchanged.",
        )
    return redirect(_roster_url(request))


def _enrollment(request: HttpRequest, enrollment_id: int) -> Enrollment:
    return get_object_or_404(
        Enrollment.objects.select_related("user", "offering"),
        pk=enrollment_id,
        offering=request.offering,
    )


@require_POST
@instructor_required
def roster_status(request: HttpRequest, enrollment_id: int) -> HttpResponse:
    enrollment = _enrollment(request, enrollment_id)
    active = request.POST.get("active") == "1"
    try:
        roster.set_active(
            enrollment=enrollment, active=active, by=request.user, address=client_ip(request)
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        who = enrollment.user.get_full_name() or enrollment.user.username
        messages.success(
            request,
            f"{who} is active again." if active else f"{who} is deactivated; their work is kept.",
        )
    return redirect(f"{_roster_url(request)}#member-{enrollment.user_id}")


@require_POST
@instructor_required
def roster_role(request: HttpRequest, enrollment_id: int) -> HttpResponse:
    enrollment = _enrollment(request, enrollment_id)
    try:
        roster.change_role(
            enrollment=enrollment,
            role=request.POST.get("role", ""),
            by=request.user,
            address=client_ip(request),
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        who = enrollment.user.get_full_name() or enrollment.user.username
        messages.success(request, f"{who} is now {enrollment.get_role_display().lower()}.")
    return redirect(f"{_roster_url(request)}#member-{enrollment.user_id}")


@require_POST
@instructor_required
def group_create(request: HttpRequest) -> HttpResponse:
    form = GroupForm(request.POST)
    if form.is_valid():
        try:
            group = roster.create_group(
                offering=request.offering,
                name=form.cleaned_data["name"],
                kind=form.cleaned_data["kind"],
                by=request.user,
            )
        except ValidationError as error:
            form.add_error("name", " ".join(error.messages))
        else:
            messages.success(request, f"{group} made: tick students below to put them in it.")
            return redirect(f"{_roster_url(request)}#groups")
    return _page(request, group_form=form, status=400)


@require_POST
@instructor_required
def group_delete(request: HttpRequest, group_id: int) -> HttpResponse:
    group = get_object_or_404(StudentGroup, pk=group_id, offering=request.offering)
    people = list(group.memberships.values_list("user_id", flat=True))
    roster.delete_group(group=group, by=request.user)
    members_changed(offering=request.offering, user_ids=people)
    messages.success(request, f"{group} deleted; its students keep their work.")
    return redirect(f"{_roster_url(request)}#groups")


@require_POST
@instructor_required
def group_members(request: HttpRequest) -> HttpResponse:
    """Put the ticked students in a group, or take them out."""
    try:
        group = get_object_or_404(
            StudentGroup, pk=int(request.POST.get("group", "")), offering=request.offering
        )
        ids = [int(value) for value in request.POST.getlist("students")[:5000]]
    except ValueError:
        messages.error(request, "Choose a group and tick at least one student.")
        return redirect(_roster_url(request))
    if not ids:
        messages.error(request, "Tick at least one student first.")
        return redirect(_roster_url(request))
    add = request.POST.get("action") != "remove"
    changed = roster.set_members(group=group, user_ids=ids, add=add, by=request.user)
    members_changed(offering=request.offering, user_ids=ids)
    verb = "added to" if add else "taken out of"
    messages.success(request, f"{changed} student(s) {verb} {group}.")
    return redirect(_roster_url(request))


@never_cache
@require_POST
@instructor_required
def password_link(request: HttpRequest, user_id: int) -> HttpResponse:
    """A one-time set-password link for one of the offering's students, shown once: in this
    response only (never stored in plain text, never put in a message or the session)."""
    student = enrolled_student(request.offering, user_id)
    try:
        token = passwords.issue_link(
            offering=request.offering, student=student, by=request.user, address=client_ip(request)
        )
    except ValidationError as error:
        messages.error(request, "No link was made. " + " ".join(error.messages))
        return redirect(f"{_roster_url(request)}#member-{student.pk}")
    path = reverse("password_link", args=[token])
    # The site's public address when it is configured, never a Host the request claimed.
    link = settings.SITE_URL + path if settings.SITE_URL else request.build_absolute_uri(path)
    context = {"student": student, "link": link, "hours": settings.PASSWORD_LINK_HOURS}
    response = render(request, "instructor/password_link.html", context)
    response["Cache-Control"] = "no-store"
    return response
