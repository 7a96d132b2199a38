"""The bank as files from the studio: download a zip of the export, upload a zip or a template.

Authors only. A bad upload (not a zip, too large, binary, unsafe paths, a template that does
not parse or validate) gets a message naming the problem, and nothing stored changes.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from courseware.roles import author_required
from quizzes.services import authoring
from quizzes.services.bank import BankError


@require_GET
@author_required
def bank_export(request: HttpRequest) -> HttpResponse:
    drafts = request.GET.get("drafts") == "1"
    data = authoring.export_zip(course=request.course, drafts=drafts)
    stamp = timezone.now().strftime("%Y%m%d-%H%M")
    name = f"questions-{'drafts-' if drafts else ''}{stamp}.zip"
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_http_methods(["GET", "POST"])
@author_required
def bank_import(request: HttpRequest) -> HttpResponse:
    problems: list[str] = []
    error = ""
    report = None
    if request.method == "POST":
        upload = request.FILES.get("file")
        try:
            if upload is None:
                raise authoring.AuthoringError("Choose a file to upload.")
            report = authoring.import_upload(upload, course=request.course, user=request.user)
        except authoring.AuthoringError as exc:
            error = str(exc)
        except BankError as exc:
            error = f"The upload has {len(exc.problems)} problem(s); nothing was imported."
            problems = exc.problems
        else:
            messages.success(request, f"Imported: {report.summary()}.")
    context = {
        "error": error,
        "problems": problems,
        "report": report,
        "max_mb": authoring.MAX_UPLOAD_BYTES // 2**20,
    }
    return render(request, "studio/bank_import.html", context, status=400 if error else 200)
