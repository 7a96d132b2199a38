"""Grading a point or a reading on the roofline chart, in log space."""

from __future__ import annotations

import math

from quizzes.engine.kinds.roofline_point.coordinates import (
    COORDINATES,
    read_coordinate,
    shown_coordinate,
)

PEAK_FOR_ATTAINABLE = "peak-for-attainable"
WRONG_LEG = "memory-vs-compute-bound"


def within(given: float, true: float, tolerance: float) -> bool:
    """Whether `given` is within a factor of `tolerance` of `true` (both positive)."""
    return abs(math.log(given / true)) <= math.log(tolerance) + 1e-12


def grade_point(settings, texts: dict, answer, figures: dict):
    """The Grade of the typed coordinates `texts` against the right point `answer`."""
    from quizzes.engine.kinds.roofline_point import ASKS
    from quizzes.grading.results import Grade

    asked = ASKS[settings.ask]
    given: dict[str, float] = {}
    for name in asked:
        try:
            given[name] = read_coordinate(name, texts.get(name, ""))
        except ValueError as error:
            return Grade("invalid", 0.0, f"Could not read {error}.")
    true = dict(zip(COORDINATES, answer, strict=True))
    right = {name: within(given[name], true[name], settings.tolerance) for name in asked}
    shown = ", ".join(shown_coordinate(name, given[name]) for name in asked)
    if all(right.values()):
        return Grade("correct", 1.0, "Correct.", interpreted=shown)
    if len(asked) == 1:
        return Grade("incorrect", 0.0, _off(asked[0]), interpreted=shown)
    diagnosis = _diagnosis(given, true, figures, settings.tolerance)
    if right["intensity"]:
        feedback = (
            "The intensity is right; the FLOP/s are not: a kernel reaches the lower of the "
            "peak and its intensity × the memory bandwidth."
        )
        return Grade("incorrect", 0.5, feedback, diagnosis, interpreted=shown)
    if right["performance"]:
        feedback = (
            "The FLOP/s are right but the intensity is not: it is the FLOP the kernel does "
            "for each byte it moves to or from memory."
        )
        return Grade("incorrect", 0.5, feedback, interpreted=shown)
    return Grade("incorrect", 0.0, "Neither coordinate is right.", diagnosis, interpreted=shown)


def _off(name: str) -> str:
    if name == "intensity":
        return "That is not the intensity asked for: check where on the chart it is read."
    return "That is not the rate the roofline allows at this intensity."


def _diagnosis(given, true, figures, tolerance) -> str | None:
    """A slip the point shows: the peak for a memory-bound kernel, or the bandwidth slope
    carried past the ridge for a compute-bound one."""
    peak, bandwidth = figures["peak"], figures["bandwidth"]
    if not within(given["intensity"], true["intensity"], tolerance):
        return None
    memory_bound = true["intensity"] * bandwidth < peak
    if memory_bound and within(given["performance"], peak, tolerance):
        return PEAK_FOR_ATTAINABLE
    slope = given["intensity"] * bandwidth
    if not memory_bound and within(given["performance"], slope, tolerance):
        return WRONG_LEG
    return None
