"""When feedback that tells something about the correct answer may be shown to a student.

A formula's counterexample ("at n = 4 your formula gives 96, the expected one 72") gives the
expected formula's value at one point.  Before the part is final that would let a student
probe the answer with free information, and under a quiz whose release policy withholds correct
answers (after submission, after the due date, never) it would hand out the values the policy
keeps back.  So it is shown exactly when the part is final and the quiz's answer gate
(`quizzes.services.release`) shows this part's correct answer; the pages ask only this function.
"""

from __future__ import annotations


def counterexample_visible(state, *, answer_released: bool) -> bool:
    """True when the counterexample of a part in `state` (a scoring.PartState) may be shown:
    the part is final and the release policy shows its correct answer (`answer_released`)."""
    return bool(state is not None and state.is_final and answer_released)
