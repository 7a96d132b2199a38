"""Grading by staff: the offering's parts graded by people, and the page that grades one part
across every student's answer, one after another (instructors and teaching assistants).

Each view reads only the URL's offering's rows (an item or answer of another offering is a
404) and calls one service reader or writer (`services.manual_grading`).  The grading page
works without script: the rubric is checkboxes, saved comments are checkboxes that add their
text, and Save takes the grader to the next answer still waiting.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from courseware.roles import staff_required
from quizzes.forms.grading import GradeForm, QueueForm
from quizzes.models import QuizItem, Response
from quizzes.services import manual_grading
from quizzes.services.availability import QuizRuleError


@require_GET
@staff_required
def grading_index(request: HttpRequest) -> HttpResponse:
    parts = manual_grading.parts_to_grade(request.offering)
    return render(request, "instructor/grading_index.html", {"parts": parts})


def _queue_url(offering, item_id: int, part_id: str, *, answer=None, anonymous=False) -> str:
    url = reverse("instructor:grade_part", args=[offering.slug, item_id, part_id])
    query = {k: v for k, v in (("answer", answer), ("anonymous", int(anonymous))) if v}
    return f"{url}?{urlencode(query)}" if query else url


@require_GET
@staff_required
def grade_part(request: HttpRequest, item_id: int, part_id: str) -> HttpResponse:
    form = QueueForm(request.GET)
    form.is_valid()  # a value it cannot use is dropped: the first answer waiting is shown
    wanted = form.cleaned_data.get("answer")
    anonymous = bool(form.cleaned_data.get("anonymous"))
    try:
        queue = manual_grading.grading_queue(
            offering=request.offering, item_id=item_id, part_id=part_id, response_id=wanted
        )
    except QuizItem.DoesNotExist:
        raise Http404("No such question in this offering.") from None
    current = queue.current
    grade = getattr(current, "manual_grade", None) if current else None
    rubric = manual_grading.rubric_for(current) if current else ()
    met = set(grade.met) if grade else set()

    def link(pk):
        return _queue_url(request.offering, item_id, part_id, answer=pk, anonymous=anonymous)

    context = {
        "queue": queue,
        "current": current,
        "grade": grade,
        "rubric": [(i, text, points, i in met) for i, text, points in rubric],
        "total": sum(points for _, _, points in rubric),
        "anonymous": anonymous,
        "previous_url": link(queue.previous_id) if queue.previous_id else "",
        "next_url": link(queue.next_id) if queue.next_id else "",
        "named_url": _queue_url(request.offering, item_id, part_id, answer=current and current.pk),
        "anonymous_url": _queue_url(
            request.offering, item_id, part_id, answer=current and current.pk, anonymous=True
        ),
    }
    return render(request, "instructor/grade_part.html", context)


@require_POST
@staff_required
def grade_answer(request: HttpRequest, item_id: int, part_id: str, response_id: int):
    form = GradeForm(request.POST)
    anonymous = request.POST.get("anonymous") == "1"
    here = _queue_url(request.offering, item_id, part_id, answer=response_id, anonymous=anonymous)
    if not form.is_valid():
        messages.error(request, f"The grade was not saved. {form.error_sentence()}")
        return redirect(here)
    data = form.cleaned_data
    try:
        queue = manual_grading.grading_queue(
            offering=request.offering, item_id=item_id, part_id=part_id, response_id=None
        )
    except QuizItem.DoesNotExist:
        raise Http404("No such question in this offering.") from None
    if response_id not in queue.ids:
        raise Http404("No such answer to this part.")
    saved = {c.pk: c.text for c in queue.saved_comments}
    comment = "\n\n".join(
        [saved[pk] for pk in data["use_comment"] if pk in saved] + [data["comment"]]
    ).strip()
    try:
        graded = manual_grading.grade_response(
            offering=request.offering,
            response_id=response_id,
            met=data["met"],
            comment=comment,
            version=data["version"],
            grader=request.user,
            now=timezone.now(),
        )
        if data["keep_comment"] and data["comment"].strip():
            # Kept only with a grade that was taken: a refused grade keeps nothing.
            manual_grading.save_comment(
                offering=request.offering,
                item_id=item_id,
                part_id=part_id,
                text=data["comment"],
                by=request.user,
            )
    except Response.DoesNotExist:
        raise Http404("No such answer to this part.") from None
    except QuizRuleError as refusal:
        messages.error(request, f"The grade was not saved. {refusal.message}")
        return redirect(here)
    if graded.changed:
        messages.success(
            request, f"Saved: {graded.grade.earned:g} of {graded.grade.total:g} points."
        )
    else:
        messages.info(request, "That grade was already saved; nothing changed.")
    after = manual_grading.grading_queue(
        offering=request.offering, item_id=item_id, part_id=part_id, response_id=response_id
    )
    target = after.next_waiting_id or response_id
    return redirect(
        _queue_url(request.offering, item_id, part_id, answer=target, anonymous=anonymous)
    )
