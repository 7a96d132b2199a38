"""When feedback that tells something about the correct answer may be shown to a student.

A formula's counterexample ("at n = 4 your formula gives 96, the expected one 72") gives the
expected formula's value at one point.  Before the part is final that would let a student
probe the answer with free information, so it is shown once the part is final: correct, its
tries spent, or its attempt submitted.

It is also the expected formula's value, so the quiz's release policy (after the part is final,
after submission, after the due date, never) must release the part's answer too: `released`
is `AnswerGate.shows` for that part, which the pages compute once per part. So must the
feedback that names the constant factor a formula is off by (`shown_feedback`).
"""

from __future__ import annotations

# The grader's diagnosis of a formula off by a constant factor: its feedback names the factor
# ("Your formula is 28× the expected one"), so dividing by it gives the answer.
CONSTANT_FACTOR = "constant-factor"
WITHHELD_FACTOR = (
    "Your formula differs from the expected one by a constant factor: check the constant factors."
)


def shown_feedback(feedback: str, diagnosis: str | None, *, reveal: bool) -> str:
    """The feedback a student may read now: the exact factor only where the answer itself may
    be shown (`reveal`, as for the counterexample)."""
    if diagnosis == CONSTANT_FACTOR and not reveal:
        return WITHHELD_FACTOR
    return feedback


def counterexample_visible(state, *, released: bool) -> bool:
    """True when the counterexample of a part in `state` (a scoring.PartState) may be shown:
    the part is final and the quiz's policy releases its answer (`released`)."""
    return bool(state is not None and state.is_final and released)
