"""The publication gate's draws at each parameter's extremes, and what a variant may cost.

Seeds 0..N-1 sample a template's parameter space; a variant that is expensive only in a corner
(the largest batch with the longest context, the widest warp) may be drawn by no seed the gate
tries and then by a student's. So the gate also draws the corners: every choice and each end
of every range and loguniform, all combinations when there are at most `MAX_EXTREME_DRAWS`, else
each parameter's every extreme against the all-low and the all-high corner plus combinations
drawn at random (seeded: the same template always gets the same draws). A combination the
constraints refuse is one no student can get and is skipped; every other one must generate,
render, and cost at most `VARIANT_BUDGET_S` seconds of CPU, what a student's start may spend.
"""

from __future__ import annotations

import itertools
import math
import random
import time

from content.expressions import ExpressionError
from quizzes.engine.errors import GenerationError, OverBudget
from quizzes.engine.model import Template
from quizzes.engine.render import render_everything
from quizzes.engine.variants import generate_variant_at, parameter_extremes

MAX_EXTREME_DRAWS = 256
# A variant is drawn while a student waits (starting a quiz, a fresh variant): a few ms for
# every template in the bank; one that takes a second is broken somewhere.
VARIANT_BUDGET_S = 1.0


def extreme_assignments(template: Template, *, limit: int = MAX_EXTREME_DRAWS) -> list[dict]:
    """The drawn parameters' combinations of extremes the gate tries (at most ``limit``)."""
    options = [(p.name, parameter_extremes(p)) for p in template.parameters if p.kind != "value"]
    if not options:
        return [{}]
    names = [name for name, _ in options]
    total = math.prod(len(values) for _, values in options)
    if total <= limit:
        return [dict(zip(names, combo)) for combo in itertools.product(*(v for _, v in options))]
    chosen: dict[tuple, dict] = {}

    def add(assignment: dict) -> None:
        chosen.setdefault(tuple(assignment[n] for n in names), assignment)

    for corner in ({n: v[0] for n, v in options}, {n: v[-1] for n, v in options}):
        add(corner)
        for name, values in options:
            for value in values:
                add({**corner, name: value})
    rng = random.Random(template.slug)
    while len(chosen) < limit:
        add({name: rng.choice(values) for name, values in options})
    return list(chosen.values())[:limit]


def describe(assignment: dict) -> str:
    return ", ".join(f"{name}={value}" for name, value in assignment.items()) or "no parameters"


def check_extremes(template: Template, failures, *, deadline: float | None, budget_s: float):
    """Draw every extreme combination; each failure goes to ``failures`` (check "extremes"
    for an expression or constraint error, "cost" for a draw over ``budget_s``)."""
    for assignment in extreme_assignments(template):
        if deadline is not None and time.monotonic() > deadline:
            raise OverBudget("the time budget ran out while drawing the parameters' extremes")
        try:
            spent = cpu_seconds(_draw_at, template, assignment)
            if spent > budget_s:
                # A cold cache or a collection can cost once: only a second slow draw counts.
                spent = min(spent, cpu_seconds(_draw_at, template, assignment))
        except (ExpressionError, GenerationError) as exc:
            failures.add("extremes", f"at {describe(assignment)}: {exc}", None, fold="extremes")
            continue
        if spent > budget_s:
            failures.add("cost", over_budget(describe(assignment), spent, budget_s), None)


def _draw_at(template: Template, assignment: dict) -> None:
    variant = generate_variant_at(template, assignment)
    if variant is not None:
        render_everything(template, variant)


def cpu_seconds(work, *args) -> float:
    """The CPU time `work(*args)` took in this process: what it costs, whatever else the
    machine is doing (wall time on a busy machine would refuse sound templates)."""
    started = time.process_time()
    work(*args)
    return time.process_time() - started


def over_budget(where: str, spent: float, budget_s: float) -> str:
    return (
        f"the variant at {where} took {spent:.1f} s to draw, more than the {budget_s:g} s a "
        "student's variant may take; bound the parameters (smaller ranges, constraints) or the "
        "work the expressions do there"
    )
