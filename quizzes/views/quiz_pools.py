"""A quiz's pools in the browser ("draw N of these M templates"), by the offering's
instructors: make or change one, remove one (`services.instructor.pools` keeps the rules)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from courseware.roles import instructor_required
from quizzes.forms.quiz_settings import PoolForm
from quizzes.models import QuestionTemplate
from quizzes.services.instructor import pools as service

from .quiz_items import _quiz


def _offered(request: HttpRequest):
    return list(
        QuestionTemplate.objects.for_course(request.course)
        .published()
        .exclude(current_version=None)
        .order_by("chapter_slug", "slug")
    )


def _back(request, quiz):
    return redirect("instructor:quiz_items", offering=request.offering.slug, slug=quiz.slug)


@require_http_methods(["GET", "POST"])
@instructor_required
def quiz_pool(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the form for a new pool, or (?pool=name) for one the quiz has. POST: save it; a
    quiz with attempts shows what the change does first and saves only when confirmed."""
    quiz = _quiz(request, slug)
    items = list(quiz.items.select_related("template").annotate(variant_count=Count("variants")))
    name = request.GET.get("pool", "")[:50]
    existing = {p["name"]: p for p in service.pools_of(quiz, items)}
    editing = existing.get(name)
    # The pool's own templates first, then the quiz's chapter's, then the rest of the bank.
    members = {i.template.slug for i in editing["members"]} if editing else set()
    chapter = quiz.chapter.slug if quiz.chapter_id else ""
    offered = sorted(
        _offered(request),
        key=lambda t: (t.slug not in members, t.chapter_slug != chapter, t.chapter_slug, t.slug),
    )
    choices = [(t.slug, f"{t.title} ({t.slug})") for t in offered]
    initial = {}
    if editing:
        initial = {
            "name": name,
            "draw": editing["draw"],
            "points": editing["points"],
            "templates": [i.template.slug for i in editing["members"]],
        }
    form = PoolForm(request.POST or None, initial=initial, choices=choices)
    context = {"quiz": quiz, "form": form, "editing": editing, "pools": existing}
    if request.method == "GET":
        return render(request, "instructor/quiz_pool.html", context)
    if form.is_valid():
        data = form.cleaned_data
        by_slug = {t.slug: t for t in offered}
        context["editing"] = existing.get(data["name"])
        try:
            service.save_pool(
                quiz=quiz,
                name=data["name"],
                draw=data["draw"],
                points=data["points"],
                templates=[by_slug[s] for s in data["templates"]],
                by=request.user,
                confirmed=data["confirm"],
            )
        except service.NeedsConfirmation as needed:
            context["needed"] = needed
            return render(request, "instructor/quiz_pool.html", context, status=409)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            drawn = f"draws {data['draw']} of {len(data['templates'])}"
            messages.success(request, f"Pool “{data['name']}” saved: it {drawn} per attempt.")
            return _back(request, quiz)
    return render(request, "instructor/quiz_pool.html", context, status=400)


@require_POST
@instructor_required
def quiz_pool_remove(request: HttpRequest, slug: str, pool: str) -> HttpResponse:
    quiz = _quiz(request, slug)
    try:
        service.remove_pool(
            quiz=quiz, name=pool, by=request.user, confirmed=request.POST.get("confirm") == "1"
        )
    except service.NeedsConfirmation as needed:
        context = {"quiz": quiz, "removing": pool, "needed": needed}
        return render(request, "instructor/quiz_pool_remove.html", context, status=409)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, f"Pool “{pool}” and its questions are removed from the quiz.")
    return _back(request, quiz)
