"""A submitted attempt's results page, and the status of its grading while the task worker
grades it (`services.grading_run`).

While an exam is being graded the page lists its questions, each "being graded" until its
grade is stored; the list polls a small partial every two seconds (htmx) and the page reloads
itself once the attempt is graded. Without JavaScript the page refreshes itself (a meta
refresh inside <noscript>) and offers a link. Scores appear only as the release policy allows.
If the worker has not graded the attempt in time, this page grades it in the request, through
the same claim as the worker, so still exactly once.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from courseware.roles import student_required
from quizzes.models import Attempt, AttemptStatus
from quizzes.presenters import page_memo, results_memo
from quizzes.presenters.score_notices import attempt_score_notices
from quizzes.services import attempts as service
from quizzes.services import grading_run
from quizzes.services.availability import student_window
from quizzes.services.release import answer_gate, results_released
from quizzes.views.targets import own_attempt

# How often the page asks whether grading has finished; a grade takes well under a second
# when the worker keeps up.
POLL_SECONDS = 2


@require_GET
@student_required
def attempt_results(request: HttpRequest, attempt_id: int) -> HttpResponse:
    attempt = own_attempt(request, attempt_id)
    now = timezone.now()
    service.expire_if_due(attempt, now=now)
    if attempt.status != AttemptStatus.SUBMITTED:
        messages.info(request, "This attempt is still open; submit it to see your results.")
        return redirect(attempt)
    grading_run.grade_if_overdue(attempt, now=now)
    window = student_window(attempt.quiz, request.user)
    released = results_released(attempt.quiz, window, now)
    context = {"attempt": attempt, "quiz": attempt.quiz, "window": window, "released": released}
    if attempt.is_grading:
        # Kept whole until a grade is stored (page_memo: the attempt's page stamp moves).
        key = page_memo.grading_page_key(request, attempt, window=window, released=released)
        html = page_memo.served(request, key)
        if html is not None:
            return HttpResponse(html)
        csrf, clock = get_token(request), page_memo.server_now()
        # The page's one token, which the memo keeps as a placeholder.
        context.update(_grading(attempt), poll_seconds=POLL_SECONDS, csrf_token=csrf)
        response = render(request, "quizzes/attempt_results.html", context)
        page_memo.keep(key, response.content.decode(), csrf, [], clock)
        return response
    if released:
        # Drawn once per change of what it shows (results_memo); the notices are read each time.
        gate = answer_gate(attempt, now=now, window=window)
        drawn = results_memo.graded_sections(request, attempt, window=window, gate=gate)
        context.update(score_card=drawn["score_card"], questions=drawn["questions"])
        context["charts"] = drawn["charts"]
        context["score_notices"] = attempt_score_notices(
            request.user,
            attempt,
            overrides=drawn["override_notices"],
            regraded=drawn["regraded"],
        )
    return render(request, "quizzes/attempt_results.html", context)


@require_GET
@student_required
def attempt_grading(request: HttpRequest, attempt_id: int) -> HttpResponse:
    """The grading status partial the results page polls; once graded, htmx reloads the page
    (a plain request is sent to the page itself)."""
    attempt = own_attempt(request, attempt_id)
    if attempt.status == AttemptStatus.SUBMITTED:
        grading_run.grade_if_overdue(attempt, now=timezone.now())
    if not request.htmx or not attempt.is_grading:
        url = _results_url(attempt)
        if request.htmx:
            response = HttpResponse("")
            response["HX-Redirect"] = url  # htmx loads the graded page in place of this one
            return response
        return redirect(url)
    context = {"attempt": attempt, **_grading(attempt), "poll_seconds": POLL_SECONDS}
    return render(request, "quizzes/_grading_status.html", context)


def _grading(attempt: Attempt) -> dict:
    states = results_memo.grading_progress(attempt)
    return {
        "questions": list(enumerate(states, start=1)),
        "graded_count": states.count(grading_run.GRADED),
        "answered_count": len(states) - states.count(grading_run.UNANSWERED),
    }


def _results_url(attempt: Attempt) -> str:
    return reverse("quizzes:attempt_results", args=[attempt.quiz.offering.slug, attempt.pk])
