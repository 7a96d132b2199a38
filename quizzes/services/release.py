"""The one release gate: when a student may see a result (a score, a verdict, a change to a
score and its reason, a diagnosis) and when a part's correct answer and worked solution.

Results: `results_released` (homework at once; an exam whose `release` is after the due date
waits for the student's due date). My progress (best scores, score notices, the mistakes the
grader recognised), the quiz list and page, and the results page ask it, nothing else.

Answers: see below.

The quiz's `show_answers` policy (after the part is final, after the attempt is submitted,
after the due date, never) decides, and two rules hold under every policy:

- An answer is never shown while the student can still answer that part (it is final: correct,
  tries spent, or the attempt submitted).
- A part the student never tried (no graded answer: untouched, or only unreadable text) is not
  "final" by a submission alone while the student could start another attempt. Otherwise an
  empty submission would hand out every worked solution, and with unlimited attempts and a small
  parameter space the same numbers come back. Once no further attempt is possible (the limit is
  used, or the quiz is closed to this student) it is shown like any other.

Every page and fragment that shows answers asks `AnswerGate.shows` for each part; the solution,
which holds every part's answer, needs all of them. Feedback that tells the answer (a formula's
counterexample, the exact factor a formula is off by) waits for it too
(`feedback_release`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from quizzes.models import AnswerRelease, Attempt, AttemptStatus
from quizzes.services.availability import QuizWindow, results_released, student_window
from quizzes.services.scoring import PartState

__all__ = ["AnswerGate", "answer_gate", "results_released"]


@dataclass(frozen=True)
class AnswerGate:
    policy: str
    submitted: bool
    past_due: bool
    can_try_again: bool

    def shows(self, state: PartState) -> bool:
        """Whether this part's correct answer may reach the student now."""
        if self.policy == AnswerRelease.NEVER:
            return False
        if not (state.is_final or self.submitted):
            return False
        if not state.graded and self.can_try_again:
            return False
        if self.policy == AnswerRelease.AFTER_SUBMISSION:
            return self.submitted
        if self.policy == AnswerRelease.AFTER_DUE:
            return self.past_due
        return True

    def shows_all(self, states) -> bool:
        states = list(states)
        return bool(states) and all(self.shows(state) for state in states)


def answer_gate(
    attempt: Attempt, *, now: datetime | None = None, window: QuizWindow | None = None
) -> AnswerGate:
    """The gate for one attempt's parts, for its own student, at `now` (1 or 2 queries)."""
    now = now or timezone.now()
    quiz = attempt.quiz
    window = window or student_window(quiz, attempt.student)
    submitted = attempt.status == AttemptStatus.SUBMITTED
    can_try_again = not submitted or _may_start_another(attempt, window, now)
    return AnswerGate(
        policy=quiz.show_answers,
        submitted=submitted,
        # With no due date there is no such moment: "after the due date" then shows nothing.
        past_due=window.due_at is not None and now > window.due_at,
        can_try_again=can_try_again,
    )


def _may_start_another(attempt: Attempt, window: QuizWindow, now: datetime) -> bool:
    if window.refusal(now) is not None:
        return False
    limit = window.max_attempts
    if not limit:
        return True
    used = Attempt.objects.filter(quiz=attempt.quiz_id, student=attempt.student_id).count()
    return used < limit
