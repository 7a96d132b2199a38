"""An offering's student pages: its home, quiz list, quiz rules, the attempt itself and My
progress (the results page: `quizzes.views.results`). Every row read here is the URL's
offering's (`request.offering`): another offering's quiz or attempt is a 404, as is another
student's attempt.

Views parse the request, call one service, render. Every rule (dates, tries, deadlines,
idempotency) is enforced by `quizzes.services.attempts`; a refusal becomes a message on the
page (or in the htmx fragment), never a 500. Another student's attempt answers 404.

Django messages are for plain form posts that redirect: the page they land on shows them. An
htmx request carries its message in the fragment it returns, so nothing is left queued for
some later, unrelated page.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from courseware.models import Role
from courseware.roles import STAFF, enrolled_required, student_required
from courseware.timezones import place_name
from quizzes.models import Attempt, AttemptStatus, Quiz, Variant
from quizzes.presenters import page_memo
from quizzes.presenters import progress as progress_data
from quizzes.presenters.attempt import attempt_blocks, checked_block
from quizzes.presenters.markup import render_inline
from quizzes.presenters.results import override_notes
from quizzes.presenters.score_notices import score_notices
from quizzes.services import attempts as service
from quizzes.services import questions
from quizzes.services.availability import QuizRuleError, student_window
from quizzes.services.release import answer_gate, results_released
from quizzes.services.submission import parts_to_look_at
from quizzes.views.targets import offering_quiz, own_attempt, student_part_view


def _tell(request: HttpRequest, level: int, message: str) -> None:
    """Queue `message` for the page a plain post redirects to (never for an htmx request)."""
    if not request.htmx:
        messages.add_message(request, level, message)


# -- quizzes ---------------------------------------------------------------------------------


@require_GET
@enrolled_required
def offering_home(request: HttpRequest) -> HttpResponse:
    """The offering's front page: the staff's dashboard, or the student's quizzes."""
    if request.offering_role in STAFF:
        return redirect("instructor:dashboard", offering=request.offering.slug)
    return _quiz_list(request)


@require_GET
@enrolled_required
def quiz_list(request: HttpRequest) -> HttpResponse:
    return _quiz_list(request)


def _quiz_list(request: HttpRequest) -> HttpResponse:
    rows = progress_data.quiz_rows(request.offering, request.user)
    return render(request, "quizzes/quiz_list.html", {"rows": rows})


@require_GET
@enrolled_required
def chapter_quiz(request: HttpRequest, chapter_slug: str) -> HttpResponse:
    quiz = (
        Quiz.objects.for_offering(request.offering)
        .visible()
        .filter(chapter__slug=chapter_slug)
        .order_by("position", "slug")
        .first()
    )
    if quiz is None:
        return render(
            request, "quizzes/chapter_quiz_missing.html", {"chapter_slug": chapter_slug}, status=404
        )
    quiz.offering = request.offering
    return redirect(quiz)


def _quiz(request: HttpRequest, slug: str) -> Quiz:
    return offering_quiz(request, slug)


@require_GET
@enrolled_required
def quiz_detail(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _quiz(request, slug)
    now = timezone.now()
    window = student_window(quiz, request.user)
    mine = list(Attempt.objects.filter(quiz=quiz, student=request.user).order_by("number"))
    for attempt in mine:
        service.expire_if_due(attempt, now=now)
    open_attempt = next((a for a in mine if a.status == AttemptStatus.IN_PROGRESS), None)
    notes = override_notes(a for a in mine if a.status == AttemptStatus.SUBMITTED)
    for attempt in mine:
        attempt.override_notes = notes.get(attempt.pk)
    used = len(mine)
    context = {
        "quiz": quiz,
        "window": window,
        "attempts": mine,
        "open_attempt": open_attempt,
        "attempts_used": used,
        "refusal": window.refusal(now),
        "limit_reached": bool(window.max_attempts and used >= window.max_attempts),
        "is_late_now": window.is_late(now),
        "is_student": request.offering_role == Role.STUDENT,
        "item_count": len(pools := list(quiz.items.order_by().values_list("pool", flat=True))),
        "questions_per_attempt": progress_data.questions_per_attempt(quiz, pools),
        "released": results_released(quiz, window, now),
    }
    return render(request, "quizzes/quiz_detail.html", context)


@require_POST
@enrolled_required
def start_attempt(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _quiz(request, slug)
    if request.offering_role != Role.STUDENT:
        # Staff preview the rules; their attempts would pollute the class statistics.
        raise PermissionDenied("Only students take quizzes; staff may read the quiz page.")
    try:
        attempt = service.start_attempt(quiz=quiz, student=request.user, now=timezone.now())
    except (QuizRuleError, questions.QuestionUnavailable) as error:
        _tell(request, messages.ERROR, getattr(error, "message", None) or str(error))
        return redirect(quiz)
    return redirect(attempt)


# -- the attempt -----------------------------------------------------------------------------


def _variant(attempt: Attempt, variant_id: int) -> Variant:
    variant = get_object_or_404(
        Variant.objects.select_related("item", "version"), pk=variant_id, attempt=attempt
    )
    variant.attempt = attempt
    return variant


@require_GET
@student_required
def attempt_detail(request: HttpRequest, attempt_id: int) -> HttpResponse:
    attempt = own_attempt(request, attempt_id)
    now = timezone.now()
    if service.expire_if_due(attempt, now=now):
        if attempt.auto_submitted:
            _tell(request, messages.INFO, "Time ran out, so this attempt was submitted for you.")
        return redirect(_results_url(attempt))
    window = student_window(attempt.quiz, request.user)
    gate = answer_gate(attempt, now=now, window=window)
    refusal = window.refusal(now)
    # A warm page is served from the memo (presenters.page_memo: keyed on the attempt's stamp,
    # its quiz, the student's dates and what the release policy allows now).
    key = page_memo.page_key(request, attempt, window=window, gate=gate, refusal=refusal)
    html = page_memo.served(request, key)
    if html is not None:
        return HttpResponse(html)
    blocks = attempt_blocks(attempt, released=False, gate=gate)
    csrf, clock = get_token(request), page_memo.server_now()
    context = {
        "csrf_token": csrf,
        # The exam timer's server clock: a memoised page gets the clock of its own request.
        "server_now": clock,
        "attempt": attempt,
        "quiz": attempt.quiz,
        "window": window,
        "blocks": blocks,
        # An exam's empty or unreadable parts, listed before Submit (quiz.js keeps it current).
        "incomplete": [
            (
                f"Question {block.number}" + (f", part {p.number}" if len(block.parts) > 1 else ""),
                p.save_state,
                f"#part-{p.dom}",
            )
            for block in blocks
            for p in block.parts
            if p.save_state in ("empty", "unreadable")
        ],
        "is_exam": attempt.quiz.is_exam,
        "refusal": refusal,
        "now": now,
    }
    response = render(request, "quizzes/attempt_detail.html", context)
    keys = [p.view.idempotency_key for block in blocks for p in block.parts]
    page_memo.keep(key, response.content.decode(), csrf, keys, clock)
    return response


def _results_url(attempt: Attempt) -> str:
    return reverse("quizzes:attempt_results", args=[attempt.quiz.offering.slug, attempt.pk])


# The results page and its grading status: quizzes.views.results.


def _part_url(attempt: Attempt, variant: Variant, part_id: str) -> str:
    return attempt.get_absolute_url() + f"#part-{variant.pk}-{part_id}"


def _answer(request: HttpRequest, variant: Variant, part_id: str):
    """The posted answer; the items' names (opaque per variant, `option_token`) become the ids
    the kind knows (an id posted as it is still counts)."""
    values = questions.with_item_ids(variant, part_id, request.POST.getlist("answer"))
    return values if len(values) != 1 else values[0]


def _fragment(request, block, part_id, *, error: str = "", closed: bool = False):
    """The answer to an htmx Check: the part's result area, not its input.

    The student may have typed on while the Check was in flight; swapping only the result
    (plus, out of band, a fresh form key, the tries left and the hints) leaves the newer text
    alone. A part that has just become final is redrawn whole, its input now read-only.
    """
    variant = block.variant
    part = block.part(part_id)
    if part is None:
        raise Http404("No such part.")
    context = {
        "attempt": variant.attempt,
        "block": block,
        "p": part,
        "error": error,
        "closed": closed,
    }
    if closed:
        return HttpResponse(_partial(request, "result", context))
    extras = _partial(request, "extras", {**context, "oob": True})
    if part.state.is_final:
        response = HttpResponse(_partial(request, "part", context) + extras)
        response["HX-Retarget"] = f"#part-{variant.pk}-{part_id}"
        response["HX-Reswap"] = "outerHTML"
        return response
    fresh = {**context, "oob": True}
    html = _partial(request, "result", context)
    controls = _partial(request, "answer_key", fresh) + _partial(request, "answer_actions", fresh)
    return HttpResponse(html + controls + extras)


def _partial(request: HttpRequest, name: str, context: dict) -> str:
    return render_to_string(f"quizzes/attempt_detail.html#{name}", context, request=request)


@require_POST
@student_part_view
def submit_part(request: HttpRequest, variant: Variant, part_id: str):
    attempt = variant.attempt
    error, checked = "", None
    try:
        checked = service.check_answer(
            variant=variant,
            part_id=part_id,
            raw=_answer(request, variant, part_id),
            student=request.user,
            idempotency_key=request.POST.get("idempotency_key", ""),
            now=timezone.now(),
        )
    except QuizRuleError as refusal:
        error = refusal.message
    if checked is None or checked.states is None:
        # Refused or replayed: the attempt may have closed meanwhile, so read it again.
        attempt.refresh_from_db()
    if request.htmx:
        # A stale tab (the attempt was submitted elsewhere, or time ran out) hears it here.
        closed = not attempt.is_open
        if checked is not None and checked.states is not None:
            fresh = checked.variant
            fresh.attempt = attempt
            block = checked_block(fresh, states=checked.states, window=checked.window)
        else:
            block = checked_block(variant)
        return _fragment(request, block, part_id, error=error, closed=closed)
    if error:
        _tell(request, messages.ERROR, error)
    return redirect(_part_url(attempt, variant, part_id))


@require_GET
@student_part_view
def preview_part(request: HttpRequest, variant: Variant, part_id: str):
    attempt = variant.attempt
    raw = request.GET.get("answer", "")
    kind = questions.kind_of(variant, part_id)
    limit = questions.max_answer_length(kind.name if kind is not None else None)
    reading = None
    if kind is not None:
        reading = questions.preview(variant, part_id, raw if len(raw) <= limit else "")
    if reading is None:
        raise Http404("This part has no preview.")
    text, ok, latex = reading
    if len(raw) > limit:
        text, ok, latex = f"Too long: at most {limit} characters.", False, ""
    math = render_inline(f"${latex}$") if latex else ""
    context = {"preview": text, "preview_ok": ok, "preview_math": math, "raw": raw}
    if request.htmx:
        return render(request, "quizzes/_formula_preview.html", context)
    return render(request, "quizzes/formula_preview.html", {**context, "attempt": attempt})


SUPERSEDED = "A newer save of this answer is already stored; this one was not applied."


@require_POST
@student_part_view
def autosave(request: HttpRequest, variant: Variant, part_id: str):
    attempt = variant.attempt
    now = timezone.now()
    try:
        saved = service.autosave(
            variant=variant,
            part_id=part_id,
            raw=_answer(request, variant, part_id),
            student=request.user,
            now=now,
            sequence=request.POST.get("sequence"),
        )
        if saved.superseded:
            # A slow save that arrived after a newer one: the newer text stays stored.
            status, message = "superseded", SUPERSEDED
        else:
            # Parsed (never graded) so the student sees how it will be read, or why it cannot be.
            status, reading = questions.saved_state(variant, part_id, saved.raw)
            # The reader's clock, with its zone named as every other time on the site.
            zone = place_name(timezone.get_current_timezone_name())
            message = f"Saved at {timezone.localtime(now):%H:%M:%S} {zone}" + (
                f" · {reading}" if reading else ""
            )
            if status == "unreadable":
                message += " Fix it before you submit: an answer that cannot be read scores 0."
    except QuizRuleError as refusal:
        status, message = "refused", refusal.message
    if request.htmx:
        html = render_to_string(
            "quizzes/attempt_detail.html#save_status",
            {"save_status": status, "save_message": message},
            request=request,
        )
        response = HttpResponse(html)
        if status == "superseded":
            # Not an error and not this text saved: the status line keeps the newer save's,
            # and the page's next save goes above the stored one (quiz.js).
            response["HX-Reswap"] = "none"
            response["X-Save-Sequence"] = str(saved.stored_sequence)
        if status == "refused":
            # Refused: the attempt may have closed meanwhile (time ran out), so read it again.
            attempt.refresh_from_db()
        if attempt.status != AttemptStatus.IN_PROGRESS:
            response["HX-Redirect"] = _results_url(attempt)
        elif attempt.deadline:
            # The deadline as it stands (an extension moves it): the page's timer follows it.
            response["X-Attempt-Deadline"] = attempt.deadline.isoformat()
        return response
    level = {"saved": messages.SUCCESS, "superseded": messages.INFO}.get(status, messages.ERROR)
    _tell(request, level, message)
    return redirect(_part_url(attempt, variant, part_id))


@require_POST
@student_required
def new_variant(request: HttpRequest, attempt_id: int, variant_id: int) -> HttpResponse:
    attempt = own_attempt(request, attempt_id)
    variant = _variant(attempt, variant_id)
    try:
        fresh = service.new_variant(variant=variant, student=request.user, now=timezone.now())
    except QuizRuleError as refusal:
        _tell(request, messages.ERROR, refusal.message)
        fresh = variant
    number = attempt.item_ids.index(fresh.item_id) + 1 if fresh.item_id in attempt.item_ids else 1
    return redirect(attempt.get_absolute_url() + f"#q{number}")


@require_POST
@student_required
def submit_attempt(request: HttpRequest, attempt_id: int) -> HttpResponse:
    attempt = own_attempt(request, attempt_id)
    open_exam = attempt.quiz.is_exam and attempt.status == AttemptStatus.IN_PROGRESS
    if open_exam and request.POST.get("confirm") != "1":
        # An exam is submitted once: a Submit the page's script did not confirm (no JavaScript)
        # is asked here, with the server's own list of parts that would score 0.
        context = {
            "attempt": attempt,
            "quiz": attempt.quiz,
            "to_look_at": parts_to_look_at(attempt),
        }
        return render(request, "quizzes/submit_confirm.html", context)
    try:
        service.submit_attempt(attempt=attempt, student=request.user, now=timezone.now())
    except QuizRuleError as refusal:
        _tell(request, messages.ERROR, refusal.message)
        attempt.refresh_from_db()
        if attempt.status == AttemptStatus.IN_PROGRESS:
            return redirect(attempt)
    return redirect(_results_url(attempt))


# -- my progress -----------------------------------------------------------------------------


@require_GET
@student_required
def progress(request: HttpRequest) -> HttpResponse:
    context = progress_data.progress_context(request.offering, request.user)
    context["score_notices"] = score_notices(
        request.user, released_quiz_ids=context["released_quiz_ids"]
    )
    return render(request, "quizzes/progress.html", context)
