"""Instructor pages: dashboard, gradebook, one student's history with overrides and extensions,
item analysis, the misconception map and variant search. Exports and regrades live in
`instructor_exports` and `instructor_regrade`.

Every view is for the offering's staff, its instructors and teaching assistants
(`staff_required`), and reads and writes only the URL's offering's rows (a student or attempt
of another offering is a 404); each parses the request, calls one service reader or writer, and
renders.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from courseware.models import StudentGroup
from courseware.roles import staff_required
from quizzes import tasks as jobs
from quizzes.forms import AccommodationForm, ExtensionForm, GradebookForm, OverrideForm
from quizzes.forms.analytics import AnalyticsFilterForm
from quizzes.presenters import instructor as pages
from quizzes.presenters.gradebook import columns as gradebook_columns
from quizzes.services import instructor
from quizzes.services.instructor import items, offering_statistics


def _page(request: HttpRequest, template: str, context: dict, partial: str | None = None):
    """The whole page, or for an htmx request only the named inline partial."""
    if partial and request.htmx and not request.htmx.boosted:
        template = f"{template}#{partial}"
    return render(request, template, context)


# ---------------------------------------------------------------- dashboard and gradebook


@require_GET
@staff_required
def dashboard(request: HttpRequest) -> HttpResponse:
    form, scope = analytics_filter(request)
    context = pages.dashboard_page(request.offering, scope)
    return render(request, "instructor/dashboard.html", {**context, **_filtered(form)})


def analytics_filter(request: HttpRequest):
    """The analytics pages' one filter (quiz, group, days) from the query string, and the scope
    it makes (None when the page is not filtered); the dashboard, the item index, item
    analysis and the misconception map all read it here, and draw it with
    `instructor/_analytics_filter.html`."""
    form = AnalyticsFilterForm(request.GET or None, offering=request.offering)
    return form, (form.scope() if form.is_bound else None)


def _filtered(form) -> dict:
    return {"filter": form, "filter_error": form.is_bound and form.error_sentence()}


@require_GET
@staff_required
def gradebook(request: HttpRequest) -> HttpResponse:
    groups = list(StudentGroup.objects.filter(offering=request.offering))
    form = GradebookForm(request.GET, groups=groups)
    values = form.values
    book = instructor.gradebook(request.offering, page=values["page"], **form.choices())
    context = {
        "book": book,
        "columns": gradebook_columns(
            quizzes=book.quizzes,
            scheme=book.scheme,
            sort=values["sort"],
            direction=values["dir"],
            kept=form.query_without("sort", "dir"),
        ),
        "q": values["q"],
        "sort": values["sort"],
        "dir": values["dir"],
        "show": values["show"],
        "diagnosis": values["diagnosis"],
        "group": values["group"],
        "inactive": values["inactive"],
        "groups": groups,
        "filters": instructor.FILTERS,
        "query": form.query(),
        "filtered": form.filtered,
        "ignored": form.ignored,
        "rule": instructor.TOTAL_RULE,
    }
    return _page(request, "instructor/gradebook.html", context, "table")


# ---------------------------------------------------------------- one student


# A refused override's typed values, kept in the session for the one page view that shows them.
FAILED_OVERRIDE = "instructor_failed_override"


@require_GET
@staff_required
def student_detail(request: HttpRequest, user_id: int) -> HttpResponse:
    student = items.enrolled_student(request.offering, user_id)
    # A refused override comes back once, to be shown in its own form with what was typed.
    failed = request.session.pop(FAILED_OVERRIDE, None)
    context = {
        **pages.student_page(request.offering, student, failed_override=failed),
        "override_form": OverrideForm(),
        "extension_form": ExtensionForm(offering=request.offering),
        "accommodation_form": AccommodationForm(),
    }
    return render(request, "instructor/student_detail.html", context)


@require_POST
@staff_required
def override_score(request: HttpRequest, attempt_id: int) -> HttpResponse:
    attempt = items.offering_attempt(request.offering, attempt_id)
    back = (
        reverse("instructor:student_detail", args=[request.offering.slug, attempt.student_id])
        + f"#attempt-{attempt.pk}"
    )
    form = OverrideForm(request.POST)

    def refuse(error: str) -> HttpResponse:
        # The error and the typed values go back to this attempt's form, which opens with them.
        request.session[FAILED_OVERRIDE] = {
            "attempt": attempt.pk,
            "item": request.POST.get("item", "")[:20],
            "score": request.POST.get("score", "")[:20],
            "reason": request.POST.get("reason", "")[:2000],
            "error": error,
        }
        messages.error(request, f"The override was not saved. {error}")
        # To the error itself (focusable): the browser scrolls to it and focuses it.
        return redirect(f"{back.partition('#')[0]}#override-error-{attempt.pk}")

    if not form.is_valid():
        return refuse(form.error_sentence())
    item = None
    if form.cleaned_data["item"]:
        item = items.attempt_item(attempt, form.cleaned_data["item"])
        if item is None:
            return refuse("That is an unknown question: choose one from the list.")
    try:
        instructor.override_score(
            attempt=attempt,
            item=item,
            score=form.cleaned_data["score"],
            reason=form.cleaned_data["reason"],
            by=request.user,
        )
    except ValidationError as error:
        return refuse(" ".join(error.messages))
    else:
        messages.success(request, "Override saved.")
    return redirect(back)


@require_POST
@staff_required
def grant_extension(request: HttpRequest, user_id: int) -> HttpResponse:
    student = items.enrolled_student(request.offering, user_id)
    back = reverse("instructor:student_detail", args=[request.offering.slug, student.pk])
    back += "#extensions"
    form = ExtensionForm(request.POST, offering=request.offering)
    if not form.is_valid():
        messages.error(request, f"The extension was not granted. {form.error_sentence()}")
        return redirect(back)
    data = form.cleaned_data
    try:
        instructor.grant_extension(
            quiz=data["quiz"],
            student=student,
            by=request.user,
            opens_at=data["opens_at"],
            due_at=data["due_at"],
            closes_at=data["closes_at"],
            extra_minutes=data["extra_minutes"],
            extra_attempts=data["extra_attempts"],
            reason=data["reason"],
        )
    except ValidationError as error:
        messages.error(request, "The extension was not granted. " + " ".join(error.messages))
    else:
        messages.success(request, f"Extension on {data['quiz'].title} granted.")
    return redirect(back)


# ---------------------------------------------------------------- items and misconceptions


@require_GET
@staff_required
def item_index(request: HttpRequest) -> HttpResponse:
    form, scope = analytics_filter(request)
    sort = {
        "sort": request.GET.get("sort", "chapter"),
        "descending": request.GET.get("dir") == "desc",
    }
    # The quiz counters as the filter read them with its choices (one query for both).
    context = pages.item_index_page(
        request.offering, scope=scope, counters=form.quiz_counters(), **sort
    )
    # Grades changed since the kept figures were computed: recomputed as on the item page.
    if context["kept"] is not None and context["kept"].stale:
        if jobs.request_offering_statistics_refresh(
            offering=request.offering, kind=offering_statistics.Kind.ITEM_INDEX
        ):
            context = pages.item_index_page(request.offering, scope=scope, **sort)
    # A column's sort link and a template's link keep the filter.
    kept = request.GET.copy()
    for name in ("sort", "dir"):
        kept.pop(name, None)
    context["filter_query"] = kept.urlencode()
    context["rows_html"] = pages.index_rows_html(
        context["rows"], context["items_url"], f"?{kept.urlencode()}" if form.active else ""
    )
    return render(request, "instructor/item_index.html", {**context, **_filtered(form)})


@require_GET
@staff_required
def item_analysis(request: HttpRequest, slug: str, quiz_slug: str | None = None) -> HttpResponse:
    form, scope = analytics_filter(request)
    context = pages.item_analysis_page(request.offering, slug, quiz_slug, scope)
    # Grades changed since the kept statistics were computed: they are recomputed in the
    # background (the page shows their time meanwhile), or at once by an immediate backend.
    if context["kept"].stale and jobs.request_statistics_refresh(
        template=context["template"], offering=request.offering, quiz=context["quiz"]
    ):
        context = pages.item_analysis_page(request.offering, slug, quiz_slug, scope)
    context["filtered_live"] = scope is not None and scope.narrows
    return render(request, "instructor/item_analysis.html", {**context, **_filtered(form)})


@require_GET
@staff_required
def misconceptions(request: HttpRequest) -> HttpResponse:
    form, scope = analytics_filter(request)
    # The quiz counters as the filter read them with its choices (one query for both).
    context = items.misconception_page(request.offering, scope, counters=form.quiz_counters())
    if context["kept"] is not None and context["kept"].stale:
        if jobs.request_offering_statistics_refresh(
            offering=request.offering, kind=offering_statistics.Kind.MISCONCEPTIONS
        ):
            context = items.misconception_page(request.offering, scope)
    context["rows_html"] = pages.misconception_rows_html(
        context["rows"],
        items_url=context["items_url"],
        gradebook_url=context["gradebook_url"],
        key=context["rows_key"],
    )
    return render(request, "instructor/misconceptions.html", {**context, **_filtered(form)})


@require_GET
@staff_required
def variant_search(request: HttpRequest) -> HttpResponse:
    context = pages.variant_search_page(
        request.offering,
        slug=request.GET.get("template", "").strip()[:100],
        text=request.GET.get("params", "").strip()[:500],
    )
    return _page(request, "instructor/variant_search.html", context, "results")
