"""An offering's quizzes and their items: add a published template of the bank to one of the
offering's quizzes, remove an unanswered item, choose when answers are shown. Each change marks
the quiz as edited in the browser, so its quiz file no longer overwrites it.

Quiz settings are the offering's instructors' (``instructor_required``): not its teaching
assistants', and not the site's authors' (they write the bank, which every offering draws on).
"""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from courseware.roles import instructor_required
from quizzes.forms import QuizItemForm
from quizzes.models import AnswerRelease, QuestionTemplate, Quiz, QuizItem
from quizzes.services import authoring
from quizzes.services.instructor.pools import pools_of
from quizzes.services.instructor.quiz_settings import mark_edited


@require_GET
@instructor_required
def quiz_index(request: HttpRequest) -> HttpResponse:
    quizzes = (
        Quiz.objects.for_offering(request.offering)
        .select_related("chapter")
        .annotate(item_count=Count("items"))
        .order_by("position", "slug")
    )
    return render(request, "instructor/quiz_index.html", {"quizzes": quizzes})


def _quiz(request: HttpRequest, slug: str) -> Quiz:
    quiz = get_object_or_404(
        Quiz.objects.for_offering(request.offering).select_related("chapter"), slug=slug
    )
    quiz.offering = request.offering
    return quiz


def _back(quiz: Quiz):
    return redirect("instructor:quiz_items", offering=quiz.offering.slug, slug=quiz.slug)


@require_GET
@instructor_required
def quiz_items(request: HttpRequest, slug: str) -> HttpResponse:
    # ?template=<slug> preselects a template in the add form.
    form = QuizItemForm(initial={"template": request.GET.get("template", "")[:100]})
    return _items_page(request, _quiz(request, slug), form)


def _items_page(request: HttpRequest, quiz: Quiz, form: QuizItemForm, error: str = ""):
    """The quiz's items and the add form; a refused form comes back with the typed values."""
    items = list(
        quiz.items.select_related("template__current_version", "pinned_version")
        .annotate(variant_count=Count("variants"))
        .order_by("position")
    )
    used = {item.template_id for item in items}
    offered = [
        t
        for t in QuestionTemplate.objects.for_course(request.course)
        .published()
        .exclude(current_version=None)
        .order_by("chapter_slug", "slug")
        if t.pk not in used
    ]
    context = {
        "quiz": quiz,
        "items": items,
        "pools": pools_of(quiz, items),
        "offered": offered,
        "form": form,
        "error": error,
        "answer_choices": AnswerRelease.choices,
    }
    return render(request, "instructor/quiz_items.html", context, status=400 if error else 200)


@require_POST
@instructor_required
def quiz_show_answers(request: HttpRequest, slug: str) -> HttpResponse:
    """When this quiz's students see correct answers and worked solutions (enforced on the
    server by `quizzes.services.release`)."""
    quiz = _quiz(request, slug)
    choice = request.POST.get("show_answers", "")
    if choice not in AnswerRelease.values:
        messages.error(request, "Choose one of the listed moments for showing answers.")
    else:
        Quiz.objects.filter(pk=quiz.pk).update(show_answers=choice)
        mark_edited(quiz, request.user)
        label = AnswerRelease(choice).label
        messages.success(request, f"Correct answers and worked solutions: {label.lower()}.")
    return _back(quiz)


@require_POST
@instructor_required
def quiz_add_item(request: HttpRequest, slug: str) -> HttpResponse:
    """Add the chosen template; bad input shows the page again with the message and the text
    as typed (nothing is stored)."""
    quiz = _quiz(request, slug)
    form = QuizItemForm(request.POST)
    if not form.is_valid():
        return _items_page(request, quiz, form, form.error_text())
    template = (
        QuestionTemplate.objects.for_course(request.course)
        .filter(slug=form.cleaned_data["template"])
        .first()
    )
    try:
        if template is None:
            raise authoring.AuthoringError("Choose a published template to add.")
        item = authoring.add_quiz_item(
            quiz=quiz,
            template=template,
            points=form.cleaned_data["points"],
            position=form.cleaned_data["position"],
        )
    except authoring.AuthoringError as exc:
        return _items_page(request, quiz, form, str(exc))
    mark_edited(quiz, request.user)
    messages.success(
        request, f"Added '{template.slug}' as question {item.position} ({item.points} pts)."
    )
    return _back(quiz)


@require_POST
@instructor_required
def quiz_remove_item(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    quiz = _quiz(request, slug)
    item = get_object_or_404(QuizItem.objects.select_related("template"), pk=item_id, quiz=quiz)
    try:
        authoring.remove_quiz_item(item=item)
    except authoring.AuthoringError as exc:
        messages.error(request, str(exc))
    else:
        mark_edited(quiz, request.user)
        messages.success(request, f"Removed '{item.template.slug}' from the quiz.")
    return _back(quiz)
