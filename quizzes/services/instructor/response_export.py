"""Every response of an offering's quizzes as CSV or JSON: streamed in the request for a small
class, prepared by a background task for a large one (issue 34: 191 MB took 21.6 s of a web
worker's thread at 3,000 students).

Rows are read with `iterator(chunk_size=CHUNK)` and written as they come, in the request and in
the task alike, so a large class never sits in memory. Text cells a spreadsheet would run as a
formula are defused with a quote.

A background export (`ExportRun`) is written to a private file under `settings.EXPORTS_ROOT`
(no URL serves that folder: the download view checks the offering's staff), keeps its progress
on its row every CHUNK rows, and is removed `settings.EXPORTS_KEPT_HOURS` after it is ready by
the task worker's sweep (`remove_expired`).
"""

from __future__ import annotations

import csv
import json
import uuid
from collections.abc import Iterable, Iterator
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from quizzes.models import ExportRun, Response

CHUNK = 2000
# Above this many responses an export is prepared in the background: at ~30 µs a row in the
# request (21.6 s for 589,874 on PostgreSQL), 20,000 rows hold a web thread for under a second.
DIRECT_MAX = 20_000
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


def responses(offering):
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


def small_enough(offering) -> bool:
    """Whether the offering's responses are few enough to stream in a request (one bounded
    count: it stops at DIRECT_MAX + 1 rows)."""
    wanted = Response.objects.filter(variant__attempt__quiz__offering=offering).values("pk")
    return wanted[: DIRECT_MAX + 1].count() <= DIRECT_MAX


def csv_stream(offering, rows=None) -> Iterator[str]:
    rows = rows if rows is not None else responses(offering).iterator(chunk_size=CHUNK)
    return _csv_stream(
        (name for name, _ in RESPONSE_FIELDS), ([_plain(v) for v in r] for r in rows)
    )


def json_stream(offering, rows=None) -> Iterator[str]:
    names = [name for name, _ in RESPONSE_FIELDS]
    rows = rows if rows is not None else responses(offering).iterator(chunk_size=CHUNK)
    yield "["
    first = True
    for row in rows:
        record = {
            name: (value.isoformat() if hasattr(value, "isoformat") else value)
            for name, value in zip(names, row)
        }
        yield ("\n" if first else ",\n") + json.dumps(record, ensure_ascii=False)
        first = False
    yield "\n]\n"


STREAMS = {ExportRun.Kind.RESPONSES_CSV: csv_stream, ExportRun.Kind.RESPONSES_JSON: json_stream}


# ---------------------------------------------------------------- background exports


def root() -> Path:
    return Path(settings.EXPORTS_ROOT)


def path_of(run: ExportRun) -> Path:
    return root() / run.file_name


def queue(*, offering, kind: str, by) -> tuple[ExportRun, bool]:
    """A new export of `kind`, or the offering's export of that kind still being prepared
    (two clicks make one file); whether it is new."""
    with transaction.atomic():
        working = (
            ExportRun.objects.select_for_update()
            .filter(
                offering=offering,
                kind=kind,
                status__in=[ExportRun.Status.QUEUED, ExportRun.Status.RUNNING],
            )
            .first()
        )
        if working is not None:
            return working, False
        return ExportRun.objects.create(offering=offering, kind=kind, requested_by=by), True


def build(*, run_id: int) -> ExportRun | None:
    """Write a queued export's file, row by row, keeping its progress; the run, or None when it
    is gone or no longer queued (a task run twice writes one file)."""
    claimed = ExportRun.objects.filter(pk=run_id, status=ExportRun.Status.QUEUED).update(
        status=ExportRun.Status.RUNNING
    )
    if not claimed:
        return None
    run = ExportRun.objects.select_related("offering").get(pk=run_id)
    wanted = responses(run.offering)
    total = wanted.count()
    ExportRun.objects.filter(pk=run.pk).update(rows_total=total)
    name = f"{run.offering_id}/{uuid.uuid4().hex}.{run.kind.rsplit('.', 1)[-1]}"
    target = root() / name
    target.parent.mkdir(parents=True, exist_ok=True)
    done = 0

    def counted(rows):
        nonlocal done
        for row in rows:
            yield row
            done += 1
            if done % CHUNK == 0:
                ExportRun.objects.filter(pk=run.pk).update(rows_done=done)

    try:
        with open(target, "w", encoding="utf-8", newline="") as out:
            for piece in STREAMS[run.kind](
                run.offering, counted(wanted.iterator(chunk_size=CHUNK))
            ):
                out.write(piece)
    except Exception as exc:
        target.unlink(missing_ok=True)
        fail(run_id=run.pk, error=f"Writing the export stopped: {exc}")
        raise
    now = timezone.now()
    ExportRun.objects.filter(pk=run.pk).update(
        status=ExportRun.Status.DONE,
        rows_done=done,
        rows_total=max(total, done),
        file_name=name,
        size=target.stat().st_size,
        finished_at=now,
        expires_at=now + timedelta(hours=settings.EXPORTS_KEPT_HOURS),
    )
    return ExportRun.objects.get(pk=run.pk)


def fail(*, run_id: int, error: str) -> None:
    ExportRun.objects.filter(pk=run_id).update(
        status=ExportRun.Status.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def downloadable(offering, run_id: int, *, now=None) -> ExportRun | None:
    """The offering's ready, unexpired export `run_id` whose file is there, else None."""
    now = now or timezone.now()
    run = ExportRun.objects.filter(
        pk=run_id, offering=offering, status=ExportRun.Status.DONE, expires_at__gt=now
    ).first()
    if run is None or not run.file_name or not path_of(run).is_file():
        return None
    return run


def recent(offering, *, limit: int = 10) -> list[ExportRun]:
    return list(ExportRun.objects.filter(offering=offering).select_related("requested_by")[:limit])


def remove_expired(*, now=None) -> int:
    """Delete every export past its time, its file first; how many were removed."""
    now = now or timezone.now()
    expired = list(ExportRun.objects.filter(expires_at__lte=now))
    for run in expired:
        if run.file_name:
            path_of(run).unlink(missing_ok=True)
    ExportRun.objects.filter(pk__in=[run.pk for run in expired]).delete()
    return len(expired)
