"""Regrade pages: choose a template, then one of its versions; preview every score change in
the offering; apply in batches. The template and its versions are the site's bank; a run only
ever reads and changes the responses of the offering in its URL. Teaching assistants may preview;
applying is the instructors' (it changes every affected student's score).

The preview and the apply run as background tasks (`quizzes/tasks.py`), so a regrade completes
with no browser open. The progress endpoint only reads the run's row, which the task keeps up to
date; htmx polls it every second while the task works, and without JavaScript a link reloads
the page.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from courseware.roles import instructor_required, staff_required
from quizzes import tasks as jobs
from quizzes.models import QuestionTemplate, RegradeRun, RegradeStatus, TemplateVersion
from quizzes.services.instructor import items


class RegradeForm(forms.Form):
    """Step 2 of the regrade form: the template is chosen in step 1 and travels hidden; only its
    own versions are offered."""

    template = forms.ModelChoiceField(
        queryset=QuestionTemplate.objects.none(), widget=forms.HiddenInput
    )
    target_version = forms.ModelChoiceField(
        queryset=TemplateVersion.objects.none(),
        empty_label=None,
        error_messages={"invalid_choice": "Choose a version of the chosen template."},
    )
    recompute_answers = forms.BooleanField(
        required=False,
        initial=True,
        label="Recompute the correct answers from the stored parameters with this version",
        help_text="Leave unticked to keep each student's stored answers and only re-apply the "
        "grading rules (tolerance, units, common errors) of this version.",
    )

    def __init__(self, *args, course, template: QuestionTemplate | None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["template"].queryset = QuestionTemplate.objects.for_course(course)
        versions = TemplateVersion.objects.filter(template__course=course)
        if template is not None:
            versions = versions.filter(template=template)
            self.fields["template"].initial = template.pk
            current = template.current_version_id
            self.fields["target_version"].initial = current
            self.fields["target_version"].label_from_instance = lambda v: (
                f"v{v.number}"
                + (" (current)" if v.pk == current else "")
                + f" · {date_format(timezone.localtime(v.published_at), 'j M Y H:i')}"
                + (f" — {v.note}" if v.note else "")
            )
        self.fields["target_version"].queryset = versions.order_by("-number")

    def clean(self):
        data = super().clean()
        template, version = data.get("template"), data.get("target_version")
        if template and version and version.template_id != template.pk:
            raise ValidationError("Choose a version of the chosen template.")
        return data


def _chosen_template(request: HttpRequest) -> QuestionTemplate | None:
    """The template picked in step 1 (from the query string, or the posted step-2 form)."""
    pk = (request.POST if request.method == "POST" else request.GET).get("template", "")
    if not pk.isdigit():
        return None
    return items.offering_template(request.offering, int(pk))


@require_http_methods(["GET", "POST"])
@staff_required
def regrade(request: HttpRequest) -> HttpResponse:
    """Step 1 chooses a template (GET ?template=); step 2 chooses one of its versions and posts.

    htmx swaps step 2 in as soon as the template changes; without JavaScript, step 1 is a small
    GET form with its own button.
    """
    template = _chosen_template(request)
    form = None
    if template is not None:
        form = RegradeForm(request.POST or None, course=request.course, template=template)
    if request.method == "POST" and form is None:
        messages.error(request, "Choose a template first.")
        return redirect("instructor:regrade", offering=request.offering.slug)
    if request.method == "POST" and form.is_valid():
        run = jobs.request_preview(
            offering=request.offering,
            template=form.cleaned_data["template"],
            target_version=form.cleaned_data["target_version"],
            recompute_answers=form.cleaned_data["recompute_answers"],
            by=request.user,
        )
        return redirect(_detail(run))
    context = {"form": form, "chosen": template}
    if request.htmx and request.method == "GET":
        return render(request, "instructor/regrade.html#versions", context)
    context["templates"] = items.regradable_templates(request.offering)
    context["runs"] = items.recent_regrades(request.offering)
    context["statuses"] = RegradeStatus
    return render(request, "instructor/regrade.html", context)


def _run(request: HttpRequest, run_id: int) -> RegradeRun:
    run = items.offering_regrade(request.offering, run_id)
    run.offering = request.offering
    return run


def _detail(run: RegradeRun) -> str:
    return reverse("instructor:regrade_detail", args=[run.offering.slug, run.pk])


@require_GET
@staff_required
def regrade_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run(request, run_id)
    return render(request, "instructor/regrade_detail.html", _progress(run))


def _progress(run: RegradeRun) -> dict:
    working = run.status in (RegradeStatus.PREVIEWING, RegradeStatus.RUNNING) and not run.error
    failure = jobs.task_failure(run.task_id) if working else ""
    # The template compares the run's status with the choices, never with literal strings.
    return {
        "run": run,
        "working": working and not failure,
        "task_failure": failure,
        "statuses": RegradeStatus,
    }


@require_POST
@instructor_required
def regrade_apply(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run(request, run_id)
    try:
        jobs.request_apply(run=run)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    return redirect(_detail(run))


@require_http_methods(["GET", "POST"])
@staff_required
def regrade_progress(request: HttpRequest, run_id: int) -> HttpResponse:
    """The run's progress as the task left it; reading it does no work."""
    run = _run(request, run_id)
    if not request.htmx:
        return redirect(_detail(run))
    response = render(request, "instructor/regrade_detail.html#progress", _progress(run))
    was_previewing = request.GET.get("was") == RegradeStatus.PREVIEWING
    if was_previewing and run.status != RegradeStatus.PREVIEWING:
        # The preview's tables are outside the fragment: show them by loading the whole page.
        response["HX-Refresh"] = "true"
    return response
