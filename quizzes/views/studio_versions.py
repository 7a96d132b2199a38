"""The studio's template page: versions and their use, diffs, validation, publish and retire.

Authors only (``author_required``). Validation up to the publication gate's seed count runs in
the author's request; more seeds (up to 5,000) run as a background task, and the page polls the
stored report. Publish runs the publication gate as a background task too: the page shows its
progress (polling the run) and a Cancel button, and never waits for it.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRefresh

from courseware.roles import author_required
from quizzes import tasks as jobs
from quizzes.forms import ValidateForm
from quizzes.models import PublishRun
from quizzes.presenters.studio import diff_rows, report_view
from quizzes.services import authoring
from quizzes.views.studio import page, template_or_404


@require_GET
@author_required
def template_detail(request: HttpRequest, slug: str) -> HttpResponse:
    template = template_or_404(request, slug)
    current = template.current_version
    context = {
        "template": template,
        "usage": authoring.version_usage(template),
        "validation": report_view(template.last_validation),
        "draft_is_current": current is not None and not template.has_unpublished_changes,
        "run": template.publish_runs.select_related("version").first(),
    }
    return render(request, "studio/template_detail.html", context)


@require_http_methods(["GET", "POST"])
@author_required
def template_validate(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the last report and the form. POST: validate the draft over the chosen seeds."""
    template = template_or_404(request, slug)
    error = ""
    seeds_raw = request.POST.get("seeds", "") if request.method == "POST" else ""
    if request.method == "POST":
        form = ValidateForm(request.POST)
        if form.is_valid():
            try:
                jobs.request_validation(
                    template=template, seeds=form.cleaned_data["seeds"], by=request.user
                )
            except authoring.AuthoringError as refusal:
                error = str(refusal)
        else:
            error = form.error_text()
    context = {
        "template": template,
        "validation": report_view(template.last_validation),
        "error": error,
        "seeds": seeds_raw or authoring.DEFAULT_SEEDS,
        "max_seeds": authoring.MAX_SEEDS,
    }
    return page(
        request, "studio/template_validate.html", context, "report", status=400 if error else 200
    )


@require_POST
@author_required
def template_publish(request: HttpRequest, slug: str) -> HttpResponse:
    """Queue the Publish of the draft the author saw; the detail page shows its progress."""
    template = template_or_404(request, slug)
    try:
        revision = int(request.POST.get("draft_revision", ""))
        jobs.request_publication(
            template=template,
            revision=revision,
            user=request.user,
            note=request.POST.get("note", "").strip(),
        )
    except ValueError:
        messages.error(request, "The form lost its revision number; reload the page.")
    except authoring.AuthoringError as exc:
        messages.error(request, str(exc))
    return redirect(reverse("studio:template_detail", args=[template.slug]) + "#publish")


def _status(request: HttpRequest, template, run: PublishRun) -> HttpResponse:
    """The run's progress for the page's poll; once it has finished, the whole page again
    (its versions, status and form all changed), never a stale page around a new message."""
    if request.htmx and run.is_active:
        context = {"template": template, "run": run}
        return render(request, "studio/template_detail.html#publish_status", context)
    if request.htmx:
        return HttpResponseClientRefresh()
    return redirect(reverse("studio:template_detail", args=[template.slug]) + "#publish")


@require_GET
@author_required
def template_publish_status(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    """The progress of a Publish (the page polls it while the check runs)."""
    template = template_or_404(request, slug)
    run = get_object_or_404(template.publish_runs.select_related("version"), pk=run_id)
    return _status(request, template, run)


@require_POST
@author_required
def template_publish_cancel(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    """Stop a queued or running Publish; nothing is published."""
    template = template_or_404(request, slug)
    run = get_object_or_404(template.publish_runs, pk=run_id)
    run = authoring.cancel_publication(run=run)
    return _status(request, template, run)


@require_POST
@author_required
def template_retire(request: HttpRequest, slug: str) -> HttpResponse:
    template = template_or_404(request, slug)
    try:
        authoring.retire_template(template=template)
    except authoring.AuthoringError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"'{template.slug}' is retired: it is offered for no new quiz item; existing items, "
            "versions and answers stay.",
        )
    return redirect("studio:template_detail", slug=template.slug)


@require_GET
@author_required
def template_diff(request: HttpRequest, slug: str) -> HttpResponse:
    """The difference between two versions (or a version and the draft): ?a=1&b=draft."""
    template = template_or_404(request, slug)
    versions = {str(v.number): v for v in template.versions.order_by("number")}
    texts = {**{n: v.source for n, v in versions.items()}, "draft": template.draft_source}
    numbers = list(versions)
    if len(numbers) > 1:
        default_a, default_b = numbers[-2], numbers[-1]
    else:
        default_a, default_b = (numbers[-1] if numbers else "draft"), "draft"
    a = request.GET.get("a") or default_a
    b = request.GET.get("b") or default_b
    error = ""
    if a not in texts or b not in texts:
        error = "Choose two versions of this template (or its draft) to compare."
        a, b = default_a, default_b
    rows = diff_rows(texts[a], texts[b])
    context = {
        "template": template,
        "choices": list(texts),
        "a": a,
        "b": b,
        "rows": rows,
        "error": error,
        "identical": texts[a] == texts[b],
    }
    return render(request, "studio/template_diff.html", context, status=400 if error else 200)
