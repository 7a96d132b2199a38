"""A quiz made, set, published and unpublished in the browser, by the offering's instructors;
previewed as a student meets it (nothing stored), and downloaded as a quiz file.

Settings are a Django form over every setting a quiz file holds (dates in the offering's time
zone); a change that reaches attempts in progress is shown first, attempt by attempt, and saved
only when confirmed (`services.instructor.quiz_settings`).
"""

from __future__ import annotations

import re
from decimal import Decimal

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from courseware.roles import instructor_required
from quizzes.forms import PreviewSeedForm
from quizzes.forms.quiz_settings import SETTINGS, NewQuizForm, QuizSettingsForm
from quizzes.models import Attempt, AttemptStatus, Quiz
from quizzes.presenters.quiz_preview import question_blocks
from quizzes.services.authoring import random_seed
from quizzes.services.authoring.files import quiz_text
from quizzes.services.instructor import preview
from quizzes.services.instructor import quiz_settings as service


def _quiz(request: HttpRequest, slug: str) -> Quiz:
    quiz = get_object_or_404(
        Quiz.objects.for_offering(request.offering).select_related("chapter"), slug=slug
    )
    quiz.offering = request.offering
    return quiz


@require_http_methods(["GET", "POST"])
@instructor_required
def quiz_new(request: HttpRequest) -> HttpResponse:
    form = NewQuizForm(request.POST or None, offering=request.offering)
    if request.method == "POST" and form.is_valid():
        fields = {name: form.cleaned_data[name] for name in ("slug", *SETTINGS)}
        quiz = service.create_quiz(offering=request.offering, by=request.user, fields=fields)
        messages.success(
            request,
            f"{quiz.title} is made, unpublished: add its questions from the bank, then publish it.",
        )
        return redirect("instructor:quiz_items", offering=request.offering.slug, slug=quiz.slug)
    status = 400 if form.errors else 200
    return render(
        request, "instructor/quiz_settings.html", {"form": form, "new": True}, status=status
    )


@require_http_methods(["GET", "POST"])
@instructor_required
def quiz_settings(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _quiz(request, slug)
    form = QuizSettingsForm(request.POST or None, instance=quiz, offering=request.offering)
    context = {"form": form, "quiz": quiz, "new": False}
    context["open_attempts"] = Attempt.objects.filter(
        quiz=quiz, status=AttemptStatus.IN_PROGRESS
    ).count()
    if request.method == "POST":
        # The form's instance takes the typed values: read the quiz as stored again.
        stored = _quiz(request, slug)
        if form.is_valid():
            fields = {name: form.cleaned_data[name] for name in SETTINGS}
            try:
                changes = service.save_settings(
                    quiz=stored,
                    fields=fields,
                    by=request.user,
                    confirmed_key=request.POST.get("confirm_key", ""),
                )
            except service.NeedsConfirmation as needed:
                changes = service.changed_fields(stored, fields)
                context.update(
                    impacts=needed.impacts,
                    confirm_key=service.impact_key(needed.impacts),
                    effects=service.effects_of(changes),
                    changed=[form.fields[name].label for name in changes],
                    quiz=stored,
                )
                return render(request, "instructor/quiz_settings.html", context, status=409)
            except ValidationError as error:
                form.add_error(None, " ".join(error.messages))
            else:
                if changes:
                    labels = ", ".join(str(form.fields[name].label).lower() for name in changes)
                    messages.success(request, f"Saved: {labels}.")
                else:
                    messages.info(request, "Nothing changed.")
                return redirect(
                    "instructor:quiz_settings", offering=request.offering.slug, slug=slug
                )
        context["quiz"] = stored
        return render(request, "instructor/quiz_settings.html", context, status=400)
    return render(request, "instructor/quiz_settings.html", context)


@require_POST
@instructor_required
def quiz_publish(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _quiz(request, slug)
    published = request.POST.get("published") == "1"
    try:
        service.set_published(quiz=quiz, published=published, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(
            request,
            f"{quiz.title} is published: students see it."
            if published
            else f"{quiz.title} is unpublished: students no longer see it; their work is kept.",
        )
    target = (
        request.POST.get("back") == "items"
        and "instructor:quiz_items"
        or "instructor:quiz_settings"
    )
    return redirect(target, offering=request.offering.slug, slug=quiz.slug)


@require_GET
@instructor_required
def quiz_file(request: HttpRequest, slug: str) -> HttpResponse:
    """The quiz as a quiz file (docs/quiz-format.md): put it in the bank's quizzes/ folder and
    `sync_questions` reads it back as the same quiz, no change and no conflict."""
    quiz = _quiz(request, slug)
    items = list(quiz.items.select_related("template").order_by("position"))
    response = HttpResponse(quiz_text(quiz, items), content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{quiz.slug}.yaml"'
    return response


_ANSWER = re.compile(r"^q(\d{1,5})-response_([A-Za-z0-9_-]{1,50})$")


def _preview_answers(request: HttpRequest) -> dict[int, dict]:
    """The answers typed in the preview, by question position and part id (each input may send
    several values); answers typed under other numbers are no answers."""
    if request.POST.get("tried_seed") != request.POST.get("seed"):
        return {}
    found: dict[int, dict] = {}
    for key in request.POST:
        match = _ANSWER.match(key)
        if not match:
            continue
        values = [v.strip()[:500] for v in request.POST.getlist(key) if v.strip()]
        if values:
            part = found.setdefault(int(match.group(1)), {})
            part[match.group(2)] = values if len(values) > 1 else values[0]
    return found


@require_http_methods(["GET", "POST"])
@instructor_required
def quiz_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """The quiz as a student meets it, with the instructor's own preview numbers: answers are
    checked and graded, and nothing is stored (no attempt, no gradebook row, no statistic)."""
    quiz = _quiz(request, slug)
    seed_form = PreviewSeedForm(request.POST or None)
    if request.POST.get("new_seed"):
        seed, answers = random_seed(), {}
    elif request.method == "POST" and seed_form.is_valid():
        seed, answers = seed_form.seed_or_default(), _preview_answers(request)
    else:
        seed, answers = preview.default_seed(quiz=quiz, user=request.user), {}
    questions = preview.preview_quiz(quiz=quiz, seed=seed, responses=answers)
    points = sum((q.item.points for q in questions), Decimal(0))
    context = {
        "quiz": quiz,
        "seed": seed,
        "blocks": question_blocks(questions),
        "points": points,
    }
    return render(request, "instructor/quiz_preview.html", context)
