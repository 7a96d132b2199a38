"""When feedback that tells something about the correct answer may be shown to a student.

A formula's counterexample ("at n = 4 your formula gives 96, the expected one 72") gives the
expected formula's value at one point.  Before the part is final that would let a student
probe the answer with free information, so it is shown once the part is final: correct, its
tries spent, or its attempt submitted.

This is the one hook for a per-quiz release policy: a policy that withholds results (after the
due date, never) decides here too, by extending `counterexample_visible` with the quiz; the
pages ask only this function.
"""

from __future__ import annotations


def counterexample_visible(state) -> bool:
    """True when the counterexample of a part in `state` (a scoring.PartState) may be shown."""
    return bool(state is not None and state.is_final)
