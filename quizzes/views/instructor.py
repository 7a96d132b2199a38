"""Instructor pages: dashboard, gradebook, one student's history with overrides and extensions,
item analysis, the misconception map and variant search. Exports and regrades live in
`instructor_exports` and `instructor_regrade`.

Every view is for the course's instructors only (`instructor_required`); each parses the
request, calls one service reader or writer, and renders.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from courseware.models import Chapter, Role
from courseware.roles import instructor_required
from quizzes import engine
from quizzes.engine import kinds
from quizzes.models import Attempt, QuestionTemplate, Quiz, QuizItem
from quizzes.presenters.markup import render_markdown_math as render_markdown
from quizzes.services import analytics, instructor
from quizzes.services.regrade import engine_template, engine_variant


def _page(request: HttpRequest, template: str, context: dict, partial: str | None = None):
    """The whole page, or for an htmx request only the named inline partial."""
    if partial and request.htmx and not request.htmx.boosted:
        template = f"{template}#{partial}"
    return render(request, template, context)


# ---------------------------------------------------------------- charts

CHART_WIDTH, CHART_HEIGHT, CHART_GAP = 320, 120, 2


def bar_chart(counts: list[int], labels: list[str]) -> dict:
    """Geometry of a server-rendered SVG bar chart (the template draws it, a table repeats it)."""
    top = max(counts, default=0) or 1
    width = CHART_WIDTH / max(len(counts), 1)
    bars = []
    for i, (count, label) in enumerate(zip(counts, labels)):
        height = round(count / top * (CHART_HEIGHT - 16), 1)
        bars.append(
            {
                "x": round(i * width + CHART_GAP / 2, 1),
                "y": round(CHART_HEIGHT - height, 1),
                "width": round(width - CHART_GAP, 1),
                "height": height,
                "count": count,
                "label": label,
                "mid": round(i * width + width / 2, 1),
            }
        )
    return {"bars": bars, "width": CHART_WIDTH, "height": CHART_HEIGHT, "total": sum(counts)}


# ---------------------------------------------------------------- dashboard and gradebook


@require_GET
@instructor_required
def dashboard(request: HttpRequest) -> HttpResponse:
    context = instructor.dashboard(request.course)
    context["at_risk_shown"] = context["at_risk"][:25]
    for row in context["distributions"]:
        row["chart"] = bar_chart([b.count for b in row["bins"]], [b.label for b in row["bins"]])
    return render(request, "instructor/dashboard.html", context)


@require_GET
@instructor_required
def gradebook(request: HttpRequest) -> HttpResponse:
    params = request.GET
    sort = params.get("sort", "name")
    show = params.get("show", "")
    if show not in instructor.FILTERS:
        show = ""
    book = instructor.gradebook(
        request.course,
        search=params.get("q", "").strip()[:100],
        sort="name" if sort == "name" else "quiz",
        quiz_slug=sort,
        descending=params.get("dir") == "desc",
        show=show,
        diagnosis=params.get("diagnosis", "").strip()[:50],
        page=params.get("page", 1),
    )
    query = params.copy()
    query.pop("page", None)
    context = {
        "book": book,
        "q": params.get("q", ""),
        "sort": sort,
        "dir": params.get("dir", "asc"),
        "show": show,
        "diagnosis": params.get("diagnosis", ""),
        "filters": instructor.FILTERS,
        "query": query.urlencode(),
    }
    return _page(request, "instructor/gradebook.html", context, "table")


# ---------------------------------------------------------------- one student


FAILED_OVERRIDE = "instructor_failed_override"
OVERRIDE_FIELDS = {"score": "New score", "reason": "Reason", "item": "Applies to"}


class OverrideForm(forms.Form):
    item = forms.IntegerField(required=False, widget=forms.HiddenInput)
    score = forms.DecimalField(max_digits=8, decimal_places=3, min_value=0)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=2000)


class ExtensionForm(forms.Form):
    quiz = forms.ModelChoiceField(queryset=Quiz.objects.none(), empty_label=None)
    due_at = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    closes_at = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    extra_minutes = forms.IntegerField(required=False, min_value=0, max_value=10_000, initial=0)
    reason = forms.CharField(required=False, max_length=300)

    def __init__(self, *args, course, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["quiz"].queryset = Quiz.objects.for_course(course)


def _student(request: HttpRequest, user_id: int):
    return get_object_or_404(
        get_user_model(),
        pk=user_id,
        enrollments__course=request.course,
        enrollments__role=Role.STUDENT,
    )


@require_GET
@instructor_required
def student_detail(request: HttpRequest, user_id: int) -> HttpResponse:
    student = _student(request, user_id)
    history = instructor.student_history(request.course, student)
    for attempt in history["attempts"]:
        for variant in attempt.variant_list:
            variant.view = _variant_view(variant)
    # A refused override comes back once, to be shown in its own form with what was typed.
    failed = request.session.pop(FAILED_OVERRIDE, None)
    for attempt in history["attempts"]:
        attempt.failed_override = failed if failed and failed["attempt"] == attempt.pk else None
    context = {
        "student": student,
        **history,
        "override_form": OverrideForm(),
        "extension_form": ExtensionForm(course=request.course),
    }
    return render(request, "instructor/student_detail.html", context)


def _answer_text(part: engine.Part, answer, options=None) -> str:
    """The answer key of one part (with options, "id: text" per right option)."""
    kind = kinds.kind_for(part)
    if options is not None and kind.has_options:
        return kind.answer_text(part, answer, options=options)
    return kind.answer_text(part, answer)


def _variant_view(row) -> dict:
    """The prompt as the student saw it, and each part's answer key and responses."""
    responses: dict[str, list] = {}
    for response in row.response_list:
        responses.setdefault(response.part_id, []).append(response)
    parameters = [(k, analytics.parameter_text(v)) for k, v in (row.parameters or {}).items()]
    try:
        template = engine_template(row.version)
        variant = engine_variant(row)
        prompt = render_markdown(engine.render_prompt(template, variant))
        parts = []
        for part in template.parts:
            rendered = engine.render_part(template, variant, part.id)
            options = dict(rendered.options)
            answer = variant.answers.get(part.id)
            key = _answer_text(part, answer, options)
            parts.append(
                {
                    "id": part.id,
                    "kind": part.kind,
                    "prompt": render_markdown(rendered.prompt) if rendered.prompt else "",
                    "options": rendered.options,
                    "answer": key,
                    "responses": responses.pop(part.id, []),
                }
            )
    except Exception as exc:  # noqa: BLE001 - an unreadable old version must not hide the history
        return {
            "error": f"This version could not be rendered ({exc.__class__.__name__}).",
            "parameters": parameters,
            "parts": [
                {"id": pid, "answer": "", "responses": rs, "options": ()}
                for pid, rs in responses.items()
            ],
        }
    for pid, rs in responses.items():
        parts.append({"id": pid, "kind": "", "answer": "", "responses": rs, "options": ()})
    return {"prompt": prompt, "parameters": parameters, "parts": parts, "error": ""}


@require_POST
@instructor_required
def override_score(request: HttpRequest, attempt_id: int) -> HttpResponse:
    attempt = get_object_or_404(
        Attempt.objects.select_related("student"), pk=attempt_id, quiz__course=request.course
    )
    back = (
        reverse("instructor:student_detail", args=[attempt.student_id]) + f"#attempt-{attempt.pk}"
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
        return redirect(back)

    if not form.is_valid():
        return refuse(
            " ".join(
                f"{OVERRIDE_FIELDS.get(name, name)}: {' '.join(errors)}"
                for name, errors in form.errors.items()
            )
        )
    item = None
    if form.cleaned_data["item"]:
        item = QuizItem.objects.filter(pk=form.cleaned_data["item"], quiz=attempt.quiz).first()
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
@instructor_required
def grant_extension(request: HttpRequest, user_id: int) -> HttpResponse:
    student = _student(request, user_id)
    back = reverse("instructor:student_detail", args=[student.pk]) + "#extensions"
    form = ExtensionForm(request.POST, course=request.course)
    if not form.is_valid():
        errors = "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items())
        messages.error(request, f"The extension was not granted. {errors}")
        return redirect(back)
    data = form.cleaned_data
    try:
        instructor.grant_extension(
            quiz=data["quiz"],
            student=student,
            by=request.user,
            due_at=data["due_at"],
            closes_at=data["closes_at"],
            extra_minutes=data["extra_minutes"] or 0,
            reason=data["reason"],
        )
    except ValidationError as error:
        messages.error(request, "The extension was not granted. " + " ".join(error.messages))
    else:
        messages.success(request, f"Extension on {data['quiz'].title} granted.")
    return redirect(back)


# ---------------------------------------------------------------- items and misconceptions


@require_GET
@instructor_required
def item_index(request: HttpRequest) -> HttpResponse:
    stats = analytics.template_index(request.course)
    book = Chapter.objects.for_course(request.course).order_by("part__number", "order")
    chapters = {c.slug: c for c in book}
    book_order = {slug: n for n, slug in enumerate(chapters)}
    for t in stats:
        chapter = chapters.get(t.chapter_slug or "")
        t.chapter_title = chapter.title if chapter else (t.chapter_slug or "")
    sort = request.GET.get("sort", "chapter")
    if sort not in ITEM_SORTS:
        sort = "chapter"
    descending = request.GET.get("dir") == "desc"
    if sort == "chapter":
        # The book's reading order, then the template's title; templates of no chapter last.
        stats.sort(key=lambda t: (book_order.get(t.chapter_slug or "", len(book_order)), t.title))
        if descending:
            stats.reverse()
    else:
        # A template with no figure yet goes last whichever the direction.
        known = [t for t in stats if getattr(t, ITEM_SORTS[sort]) is not None]
        unknown = [t for t in stats if getattr(t, ITEM_SORTS[sort]) is None]
        known.sort(key=lambda t: (getattr(t, ITEM_SORTS[sort]), t.title), reverse=descending)
        stats = known + unknown
    columns = [
        (key, label, key == sort, "desc" if key == sort and not descending else "asc")
        for key, label in ITEM_COLUMNS
    ]
    context = {"templates": stats, "sort": sort, "descending": descending, "columns": columns}
    return render(request, "instructor/item_index.html", context)


# Sortable columns of the item index: query value -> ItemStats attribute, and their headers.
ITEM_SORTS = {
    "chapter": "chapter_slug",
    "title": "title",
    "answered": "observations",
    "mean": "mean_score",
    "first": "first_try_success",
    "p": "p_value",
    "r": "discrimination",
    "ul": "upper_lower",
}
ITEM_COLUMNS = [
    ("title", "Template"),
    ("chapter", "Chapter"),
    ("answered", "Answered"),
    ("mean", "Mean score"),
    ("first", "First-try success"),
    ("p", "Difficulty (p)"),
    ("r", "Discrimination (r)"),
    ("ul", "Upper−lower"),
]


@require_GET
@instructor_required
def item_analysis(request: HttpRequest, slug: str, quiz_slug: str | None = None) -> HttpResponse:
    template = get_object_or_404(QuestionTemplate, course=request.course, slug=slug)
    quiz = None
    if quiz_slug is not None:
        quiz = get_object_or_404(Quiz, course=request.course, slug=quiz_slug)
    stats = analytics.item_analysis(template, quiz=quiz)
    quizzes = Quiz.objects.filter(items__template=template).distinct()
    context = {
        "template": template,
        "quiz": quiz,
        "quizzes": list(quizzes),
        "stats": stats,
        "tries_chart": bar_chart(
            [row["solved"] + row["unsolved"] for row in stats.tries],
            [str(row["tries"]) for row in stats.tries],
        ),
    }
    return render(request, "instructor/item_analysis.html", context)


@require_GET
@instructor_required
def misconceptions(request: HttpRequest) -> HttpResponse:
    rows = analytics.misconception_map(request.course)
    return render(request, "instructor/misconceptions.html", {"rows": rows})


@require_GET
@instructor_required
def variant_search(request: HttpRequest) -> HttpResponse:
    slug = request.GET.get("template", "").strip()[:100]
    text = request.GET.get("params", "").strip()[:500]
    results, error, searched = [], "", bool(slug or text)
    if searched:
        try:
            filters = instructor.parse_parameter_filters(text)
        except ValidationError as exc:
            error = " ".join(exc.messages)
        else:
            results = instructor.variant_search(request.course, template_slug=slug, filters=filters)
    for row in results:
        row.parameter_list = [
            (k, analytics.parameter_text(v)) for k, v in (row.parameters or {}).items()
        ]
    context = {
        "templates": QuestionTemplate.objects.for_course(request.course).values_list(
            "slug", "title"
        ),
        "template_slug": slug,
        "params": text,
        "results": results,
        "students": len({row.attempt.student_id for row in results}),
        "error": error,
        "searched": searched,
    }
    return _page(request, "instructor/variant_search.html", context, "results")
