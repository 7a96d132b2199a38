"""Streamed exports for an offering's staff: its gradebook as CSV, every response of its
quizzes as CSV or JSON (nothing of another offering).

Rows are read with `iterator(chunk_size=...)` and written as they come, so a large class never
sits in memory. Text cells that a spreadsheet would run as a formula are defused with a quote.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from decimal import Decimal

from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from courseware.roles import staff_required
from quizzes.forms import GradebookForm
from quizzes.models import Response
from quizzes.services.instructor.export import gradebook_rows

CHUNK = 2000
# The full-width forms too: some spreadsheets (East Asian locales) read them as the ASCII signs.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")

RESPONSE_FIELDS = (
    ("student", "variant__attempt__student__username"),
    ("quiz", "variant__attempt__quiz__slug"),
    ("attempt", "variant__attempt__number"),
    ("template", "variant__item__template__slug"),
    ("version", "variant__version__number"),
    ("variant", "variant__index"),
    ("parameters", "variant__parameters"),
    ("part", "part_id"),
    ("try", "try_number"),
    ("response", "raw"),
    ("status", "status"),
    ("score", "score"),
    ("diagnosis", "diagnosis"),
    ("submitted_at", "created_at"),
    ("regraded_at", "regraded_at"),
)


def safe_cell(value):
    """A CSV cell that no spreadsheet will evaluate: text starting like a formula gets a quote."""
    if isinstance(value, str) and (
        # Spreadsheets skip leading blanks before deciding that a cell is a formula; `lstrip()`
        # knows every Unicode blank (no-break, ideographic, vertical tab, form feed), not a list.
        value.startswith(FORMULA_STARTS) or value.lstrip().startswith(FORMULA_STARTS)
    ):
        return "'" + value
    return value


class _Echo:
    def write(self, value: str) -> str:
        return value


def _csv_stream(header: Iterable[str], rows: Iterable[Iterable]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow([safe_cell(cell) for cell in header])  # quiz slugs are authors' text
    for row in rows:
        yield writer.writerow([safe_cell(cell) for cell in row])


def _download(request, stream, content_type: str, name: str, ext: str) -> StreamingHttpResponse:
    """The export as a download named for its offering (a slug: safe in the header)."""
    response = StreamingHttpResponse(stream, content_type=content_type)
    stamp = timezone.now().strftime("%Y%m%d-%H%M")
    slug = request.offering.slug
    response["Content-Disposition"] = f'attachment; filename="{name}-{slug}-{stamp}.{ext}"'
    return response


def _responses(offering):
    return (
        Response.objects.filter(variant__attempt__quiz__offering=offering)
        .order_by("variant__attempt__student__username", "variant_id", "part_id", "pk")
        .values_list(*(column for _, column in RESPONSE_FIELDS))
    )


def _plain(value):
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    return value


@require_GET
@staff_required
def export_responses_csv(request: HttpRequest) -> StreamingHttpResponse:
    rows = (
        [_plain(v) for v in row] for row in _responses(request.offering).iterator(chunk_size=CHUNK)
    )
    stream = _csv_stream((name for name, _ in RESPONSE_FIELDS), rows)
    return _download(request, stream, "text/csv; charset=utf-8", "responses", "csv")


@require_GET
@staff_required
def export_responses_json(request: HttpRequest) -> StreamingHttpResponse:
    names = [name for name, _ in RESPONSE_FIELDS]

    def stream() -> Iterator[str]:
        yield "["
        first = True
        for row in _responses(request.offering).iterator(chunk_size=CHUNK):
            record = {
                name: (value.isoformat() if hasattr(value, "isoformat") else value)
                for name, value in zip(names, row)
            }
            yield ("\n" if first else ",\n") + json.dumps(record, ensure_ascii=False)
            first = False
        yield "\n]\n"

    return _download(request, stream(), "application/json", "responses", "json")


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
