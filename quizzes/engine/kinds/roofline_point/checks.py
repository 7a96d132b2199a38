"""Validation of a roofline part in one variant: a right point that exists, under the roof, on
the chart's axes, and graded correct when typed as the answer key writes it."""

from __future__ import annotations

import math

from quizzes.engine.kinds.roofline_point.coordinates import COORDINATES, shown_coordinate


def check_part(kind, checks, part, variant, seed: int) -> None:
    from quizzes.engine.kinds.roofline_point import ASKS, _figures

    x, y = variant.answers[part.id]
    failures = checks.failures
    if not (math.isfinite(x) and math.isfinite(y) and x > 0 and y > 0):
        failures.add("answer", f"the point ({x:.4g}, {y:.4g}) is not positive", seed, part.id)
        return
    figures = _figures(variant, part)
    roof = min(figures["peak"], x * figures["bandwidth"])
    if y > roof * 1.0001:
        failures.add(
            "roofline",
            f"{y:.4g} FLOP/s at {x:.4g} FLOP/byte is above the roof ({roof:.4g} FLOP/s): "
            "no kernel gets there",
            seed,
            part.id,
            fold="above the roof",
        )
    (x_lo, x_hi), (y_lo, y_hi) = figures["x_range"], figures["y_range"]
    if not (x_lo <= x <= x_hi and y_lo <= y <= y_hi):
        failures.add(
            "roofline",
            f"the point ({x:.4g} FLOP/byte, {y:.4g} FLOP/s) is off the chart's axes "
            f"[{x_lo:g}, {x_hi:g}] × [{y_lo:.3g}, {y_hi:.3g}]",
            seed,
            part.id,
            fold="off the chart",
        )
        return
    texts = {
        name: shown_coordinate(name, value)
        for name, value in zip(COORDINATES, (x, y), strict=True)
        if name in ASKS[part.settings.ask]
    }
    grade = kind.grade(checks.template, variant, part, texts, earlier={}, grade_fn=None)
    if grade.status != "correct":
        failures.add(
            "grading", f"its own point grades {grade.status}: {grade.feedback}", seed, part.id
        )
