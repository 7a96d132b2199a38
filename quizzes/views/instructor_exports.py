"""Exports for an offering's staff: its gradebook as CSV, every response of its quizzes as CSV
or JSON (nothing of another offering), streamed in the request; a class with more responses
than `response_export.DIRECT_MAX` gets them prepared in the background instead (the exports
page: progress, then a download link, for the offering's staff only).

Rows are read with `iterator(chunk_size=...)` and written as they come, so a large class never
sits in memory. Text cells that a spreadsheet would run as a formula are defused with a quote.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from courseware.roles import staff_required
from quizzes import tasks as jobs
from quizzes.forms import GradebookForm
from quizzes.models import ExportRun
from quizzes.services.instructor import response_export
from quizzes.services.instructor.export import gradebook_rows
from quizzes.services.instructor.response_export import _csv_stream, safe_cell

__all__ = ["_csv_stream", "safe_cell"]  # used by instructor_terms and the CSV guard's tests


# The responses' rows and the CSV guard live in the service, which the background export
# (`services.instructor.response_export`) shares.
def _download(request, stream, content_type: str, name: str, ext: str) -> StreamingHttpResponse:
    """The export as a download named for its offering (a slug: safe in the header)."""
    response = StreamingHttpResponse(stream, content_type=content_type)
    stamp = timezone.now().strftime("%Y%m%d-%H%M")
    slug = request.offering.slug
    response["Content-Disposition"] = f'attachment; filename="{name}-{slug}-{stamp}.{ext}"'
    return response


def _too_large(request: HttpRequest):
    """A redirect to the background export when the offering's responses are too many to
    stream inside a request (None when they are few enough)."""
    if response_export.small_enough(request.offering):
        return None
    messages.info(
        request,
        "This class has too many responses to download at once: prepare the export here, "
        "and download it when it is ready.",
    )
    return redirect("instructor:exports", request.offering.slug)


@require_GET
@staff_required
def export_responses_csv(request: HttpRequest) -> HttpResponse:
    """Every response as CSV, streamed, for a class small enough (`response_export.
    DIRECT_MAX`); a larger one is prepared in the background (`exports`)."""
    return _too_large(request) or _download(
        request,
        response_export.csv_stream(request.offering),
        "text/csv; charset=utf-8",
        "responses",
        "csv",
    )


@require_GET
@staff_required
def export_responses_json(request: HttpRequest) -> HttpResponse:
    return _too_large(request) or _download(
        request,
        response_export.json_stream(request.offering),
        "application/json",
        "responses",
        "json",
    )


def _points(value) -> str:
    """Points exactly as stored (three decimals), without the database's float noise: SQLite's
    MAX hands back 16.3330000000000 for 16.333; trailing zeros go (17.5, 20)."""
    if value is None:
        return ""
    text = f"{Decimal(str(value)).quantize(Decimal('0.001')):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


@require_GET
@staff_required
def export_gradebook_csv(request: HttpRequest) -> StreamingHttpResponse:
    """The students the gradebook shows with the same search, filter and sort (every page),
    exact points, and each override's value and reason beside the score it replaced."""
    header, rows = gradebook_rows(request.offering, **GradebookForm(request.GET).choices())
    cells = ([_points(v) if isinstance(v, Decimal) else v for v in row] for row in rows)
    return _download(
        request, _csv_stream(header, cells), "text/csv; charset=utf-8", "gradebook", "csv"
    )


# ---------------------------------------------------------------- prepared in the background


@require_GET
@staff_required
def exports(request: HttpRequest) -> HttpResponse:
    """The offering's recent exports with their progress (an htmx request gets the list alone,
    which polls itself while one is being prepared; without JavaScript a link reloads it)."""
    context = {
        "runs": response_export.recent(request.offering),
        "kinds": ExportRun.Kind.choices,
        "kept_hours": settings.EXPORTS_KEPT_HOURS,
    }
    context["working"] = any(run.working for run in context["runs"])
    template = "instructor/exports.html"
    if request.htmx and not request.htmx.boosted:
        template += "#runs"
    return render(request, template, context)


@require_POST
@staff_required
def start_export(request: HttpRequest) -> HttpResponse:
    kind = request.POST.get("kind", "")
    if kind not in ExportRun.Kind.values:
        messages.error(request, "Choose an export: all responses as CSV or as JSON.")
        return redirect("instructor:exports", request.offering.slug)
    run = jobs.request_export(offering=request.offering, kind=kind, by=request.user)
    label = ExportRun.Kind(kind).label
    if run.status == ExportRun.Status.DONE:
        messages.success(request, f"The export of {label} is ready.")
    else:
        messages.info(request, f"The export of {label} is being prepared; it appears below.")
    return redirect("instructor:exports", request.offering.slug)


@require_GET
@staff_required
def download_export(request: HttpRequest, run_id: int) -> FileResponse:
    """A prepared export's file, for the offering's staff only (another offering's export, an
    expired one or one not ready is a 404)."""
    run = response_export.downloadable(request.offering, run_id)
    if run is None:
        raise Http404("No such export, or it has expired.")
    stamp = timezone.localtime(run.finished_at).strftime("%Y%m%d-%H%M")
    name, ext = run.kind.rsplit(".", 1)
    content_type = "text/csv; charset=utf-8" if ext == "csv" else "application/json"
    response = FileResponse(
        open(response_export.path_of(run), "rb"),
        as_attachment=True,
        filename=f"{name}-{request.offering.slug}-{stamp}.{ext}",
        content_type=content_type,
    )
    response["Cache-Control"] = "private, no-store"
    return response
